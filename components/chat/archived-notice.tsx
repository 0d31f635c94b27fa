"use client";

import { Archive } from "lucide-react";
import { useState } from "react";
import { useTranslations } from "use-intl";
import { useConversations } from "@/components/sidebar/conversations-context";

/** Above the composer of an archived conversation (opened by its URL): says so, and takes it out of the archive. */
export function ArchivedNotice({ conversationId }: { conversationId: string }) {
  const t = useTranslations("chat");
  const { organize } = useConversations();
  const [failure, setFailure] = useState<string | null>(null);
  return (
    <p
      data-testid="archived-notice"
      className="flex flex-wrap items-center justify-center gap-1.5 text-xs text-muted-foreground"
    >
      <Archive aria-hidden className="size-3.5 shrink-0" />
      {t("archivedNotice")}
      <button
        type="button"
        data-testid="archived-notice-unarchive"
        onClick={async () => setFailure((await organize(conversationId, { archived: false }))?.message ?? null)}
        className="rounded-full border border-border px-2 py-0.5 font-medium text-foreground hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring"
      >
        {t("unarchive")}
      </button>
      {failure ? (
        <span role="alert" className="basis-full text-center text-red-700 dark:text-red-400">
          {failure}
        </span>
      ) : null}
    </p>
  );
}
