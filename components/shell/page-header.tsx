"use client";

import { Menu, PanelLeftOpen } from "lucide-react";
import type { ReactNode } from "react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";
import { HIDE_SIDEBAR_ID, SHOW_SIDEBAR_ID } from "./focus-targets";
import { useShell } from "./shell-context";

/**
 * The bar above every page: the menu button (phones) or, with the desktop sidebar hidden, the button
 * showing it; the title and, on the right, `children`.
 */
export function PageHeader({
  title,
  titleTestId,
  children,
}: {
  title: string;
  titleTestId?: string;
  children?: ReactNode;
}) {
  const t = useTranslations("shell");
  const { sidebarOpen, openSidebar, sidebarCollapsed, toggleSidebar } = useShell();
  return (
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
      {sidebarCollapsed ? (
        <IconButton
          id={SHOW_SIDEBAR_ID}
          label={t("showSidebar")}
          className="max-md:hidden"
          aria-expanded={false}
          aria-controls="sidebar"
          onClick={() => {
            toggleSidebar();
            requestAnimationFrame(() => document.getElementById(HIDE_SIDEBAR_ID)?.focus());
          }}
        >
          <PanelLeftOpen aria-hidden className="size-5" />
        </IconButton>
      ) : null}
      <h1 data-testid={titleTestId} className="min-w-0 flex-1 truncate text-[0.9375rem] font-medium">
        {title}
      </h1>
      {children}
    </header>
  );
}
