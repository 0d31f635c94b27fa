"use client";

import { FolderPlus } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTranslations } from "use-intl";
import { useConversations } from "@/components/sidebar/conversations-context";
import { IconButton } from "@/components/ui/icon-button";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import type { ConversationSummary, Project } from "@/lib/client/types";
import { DeleteProjectDialog } from "./delete-project-dialog";
import { ProjectDialog } from "./project-dialog";
import { ProjectGroup } from "./project-group";
import { useProjects } from "./use-projects";

/** The project settings dialog's subject: a new project, or one to edit. */
type Editing = { project: Project | null } | null;

/**
 * The sidebar's projects, above the other chats: each with all its chats (each group reads its own),
 * folded or not; "New project"; each project's settings and deletion.
 */
export function ProjectsSection({
  activeId,
  onRequestDelete,
}: {
  activeId: string | null;
  onRequestDelete: (conversation: ConversationSummary) => void;
}) {
  const t = useTranslations("projects");
  const errorText = useErrorText();
  const router = useRouter();
  const { projects, put, drop } = useProjects();
  const { items, refresh } = useConversations();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<Project | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  // The open chat's project, when the sidebar's list has it. Not from the open conversation's cache
  // entry: a second hook on that key without a fetcher would take its revalidations (SWR calls the first).
  const activeProjectId = items.find((c) => c.id === activeId)?.projectId ?? null;

  const toggle = async (project: Project) => {
    setFailure(null);
    put({ ...project, collapsed: !project.collapsed });
    try {
      put((await api.updateProject(project.id, { collapsed: !project.collapsed })).project);
    } catch (caught) {
      put(project);
      setFailure(errorText(caught));
    }
  };

  const remove = async (project: Project, withConversations: boolean) => {
    try {
      await api.deleteProject(project.id, { withConversations });
    } catch (caught) {
      return errorText(caught);
    }
    drop(project.id);
    const activeGoes = withConversations && activeProjectId === project.id;
    await refresh();
    if (activeGoes) router.push("/");
    return null;
  };

  return (
    <section aria-labelledby="projects-heading" className="mt-1" data-testid="projects-section">
      <div className="flex items-center justify-between px-2 pt-1 pb-1">
        <h2 id="projects-heading" className="text-xs font-medium text-muted-foreground">
          {t("heading")}
        </h2>
        <IconButton
          size="sm"
          label={t("newProject")}
          data-testid="new-project"
          onClick={() => setEditing({ project: null })}
        >
          <FolderPlus aria-hidden className="size-3.5" />
        </IconButton>
      </div>
      {failure ? (
        <p role="alert" className="px-2.5 pb-1 text-xs text-red-700 dark:text-red-400">
          {failure}
        </p>
      ) : null}
      <ul className="space-y-px">
        {projects.map((project) => (
          <ProjectGroup
            key={project.id}
            project={project}
            active={activeProjectId === project.id}
            activeId={activeId}
            onToggle={() => void toggle(project)}
            onSettings={() => setEditing({ project })}
            onDelete={() => setDeleting(project)}
            onRequestDelete={onRequestDelete}
          />
        ))}
      </ul>
      {editing ? (
        <ProjectDialog
          key={editing.project?.id ?? "new"}
          project={editing.project}
          open
          onClose={() => setEditing(null)}
          onSaved={put}
        />
      ) : null}
      <DeleteProjectDialog
        key={deleting?.id ?? "none"}
        project={deleting}
        onClose={() => setDeleting(null)}
        onConfirm={remove}
      />
    </section>
  );
}
