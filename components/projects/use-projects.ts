"use client";

import useSWR from "swr";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { Project } from "@/lib/client/types";

/** The user's projects, by name (one cache entry for the sidebar, the menus and the new chat). */
export function useProjects() {
  const { data, mutate } = useSWR(cacheKeys.projects, () => api.projects());
  const projects: Project[] = data?.projects ?? [];
  return {
    projects,
    loaded: data !== undefined,
    /** Puts a created or changed project in the list, by name. */
    put(project: Project) {
      void mutate(
        (current) => ({
          projects: [...(current?.projects ?? []).filter((p) => p.id !== project.id), project].sort(
            (a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
          ),
        }),
        { revalidate: false },
      );
    },
    drop(id: string) {
      void mutate((current) => ({ projects: (current?.projects ?? []).filter((p) => p.id !== id) }), {
        revalidate: false,
      });
    },
  };
}
