"use client";

import { Menu } from "lucide-react";
import type { ReactNode } from "react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";
import { useShell } from "./shell-context";

/** A non-chat page (settings, admin): the header with the phone menu button, then its sections. */
export function PageFrame({ title, children }: { title: string; children: ReactNode }) {
  const t = useTranslations("shell");
  const { sidebarOpen, openSidebar } = useShell();
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border/70 px-2 sm:px-4">
        <IconButton
          label={t("openSidebar")}
          className="md:hidden"
          aria-expanded={sidebarOpen}
          aria-controls="sidebar"
          onClick={openSidebar}
        >
          <Menu aria-hidden className="size-5" />
        </IconButton>
        <h1 className="min-w-0 flex-1 truncate text-[0.9375rem] font-medium">{title}</h1>
      </header>
      <main className="min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto w-full max-w-3xl space-y-8 px-4 py-6 sm:px-6 sm:py-8">{children}</div>
      </main>
    </div>
  );
}

/** A titled block of a settings-like page. */
export function Section({
  title,
  description,
  children,
  testId,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <section data-testid={testId} aria-label={title} className="space-y-3">
      <div>
        <h2 className="text-base font-semibold tracking-tight">{title}</h2>
        {description ? <p className="mt-0.5 text-sm text-muted-foreground">{description}</p> : null}
      </div>
      {children}
    </section>
  );
}
