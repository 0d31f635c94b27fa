import type { IncomingMessage } from "node:http";

/** Carries the TCP peer's address; set by the server only (peer-stamp.mjs). */
export declare const PEER_HEADER: string;
export declare function stampPeer(request: IncomingMessage): void;
export declare function installPeerStamp(): void;
