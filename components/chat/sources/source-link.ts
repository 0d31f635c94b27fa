import { fileUrl } from "@/lib/client/api";

/**
 * Where a source opens: an http(s) URL as it is, `attachment:<id>` as the conversation's file;
 * anything else (javascript:, data:, a relative path) is not a link at all.
 */
export function sourceHref(url: string, conversationId: string | null): string | null {
  const attachment = /^attachment:(.+)$/.exec(url);
  if (attachment?.[1]) return conversationId ? fileUrl(conversationId, attachment[1]) : null;
  return /^https?:\/\/[^\s]+$/i.test(url) ? url : null;
}

/** "https://www.example.com/a" → "example.com": where a link leads, at a glance. */
export function domainOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return "";
  }
}
