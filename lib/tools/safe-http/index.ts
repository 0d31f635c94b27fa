/** The SSRF guard: the only way tools reach the network. */
import "server-only";

export { FetchError, type FetchErrorKind } from "./errors";
export {
  type ConnectTarget,
  type FetchedResource,
  type FetchPublicOptions,
  fetchPublic,
  USER_AGENT,
} from "./fetch-public";
export { type AddressVerdict, classifyAddress, type IpAddress, isGlobalUnicast, parseIpLiteral } from "./ip-policy";
export { defaultResolver, type Resolver } from "./resolve-hop";
export { checkUrl, matchesAllowList, type UrlCheck } from "./url-policy";
