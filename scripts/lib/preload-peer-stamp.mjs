// Preloaded by `npm start` (node --import) so the first request the server accepts is already
// stamped with its peer address (lib/auth/peer-stamp.mjs).
import { installPeerStamp } from "../../lib/auth/peer-stamp.mjs";

installPeerStamp();
