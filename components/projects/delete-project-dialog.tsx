"use client";

import { useState } from "react";
import { useTranslations } from "use-intl";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import type { Project } from "@/lib/client/types";

/**
 * Asks before a project is deleted for good, with its files; its chats stay, outside any project,
 * unless the box to delete them too is ticked.
 */
export function DeleteProjectDialog({
  project,
  onClose,
  onConfirm,
}: {
  project: Project | null;
  onClose: () => void;
  /** Resolves with an error message to show, or null when done. */
  onConfirm: (project: Project, withConversations: boolean) => Promise<string | null>;
}) {
  const t = useTranslations("projects");
  const [withChats, setWithChats] = useState(false);
  return (
    <ConfirmDialog
      open={project !== null}
      title={t("deleteTitle")}
      text={
        project
          ? t.rich("deleteText", {
              name: project.name,
              b: (chunks) => <span className="font-medium text-foreground">{chunks}</span>,
            })
          : null
      }
      extra={
        <div className="space-y-1 text-sm">
          <label className="flex items-center gap-2">
            <input
              type="checkbox"
              data-testid="delete-project-chats"
              checked={withChats}
              onChange={(event) => setWithChats(event.target.checked)}
            />
            {t("deleteChats")}
          </label>
          {withChats ? null : <p className="text-muted-foreground">{t("keepChats")}</p>}
        </div>
      }
      cancelLabel={t("cancel")}
      confirmLabel={t("deleteConfirm")}
      testId="delete-project-dialog"
      confirmTestId="confirm-delete-project"
      onClose={onClose}
      onConfirm={async () => (project ? onConfirm(project, withChats) : null)}
    />
  );
}
