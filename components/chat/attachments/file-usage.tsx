"use client";

import useSWR from "swr";
import { useTranslations } from "use-intl";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import { formatBytes } from "@/lib/client/format";

/**
 * Under the composer's files: what the chat's files and all the user's files use of their quotas
 * (MAX_FILES_PER_CONVERSATION, MAX_STORAGE_MB_PER_USER), read again each time a file is added.
 */
export function FileUsageLine({ conversationId, stored }: { conversationId: string | null; stored: number }) {
  const t = useTranslations("attachments");
  const { data } = useSWR([cacheKeys.fileUsage(conversationId), stored], () => api.fileUsage(conversationId));
  if (!data) return null;
  const used = formatBytes(data.storage.usedBytes);
  const limit = formatBytes(data.storage.limitBytes);
  const text = data.conversation
    ? t("usage", { files: data.conversation.files, maxFiles: data.conversation.limit, used, limit })
    : t("storageUsage", { used, limit });
  return (
    <p data-testid="file-usage" className="px-3 pt-1 text-xs text-muted-foreground">
      {text}
    </p>
  );
}
