"use client";

import { LogOut, Settings, ShieldCheck, UserRound } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useTranslations } from "use-intl";
import { useSession } from "@/components/auth/use-session";
import { IconButton } from "@/components/ui/icon-button";
import { cx } from "@/lib/client/cx";

const NAV_LINK =
  "flex items-center gap-2 rounded-lg px-2.5 py-2 text-sm transition-colors hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring";

/** The bottom of the sidebar: settings, the admin page for admins, who is signed in and Sign out. */
export function AccountFooter() {
  const t = useTranslations("sidebar");
  const { me, signOut } = useSession();
  const pathname = usePathname();
  const user = me?.user ?? null;

  return (
    <div className="shrink-0 space-y-0.5 border-t border-border px-2 py-2">
      <Link
        href="/settings"
        data-testid="settings-link"
        aria-current={pathname === "/settings" ? "page" : undefined}
        className={cx(NAV_LINK, pathname === "/settings" && "bg-muted font-medium")}
      >
        <Settings aria-hidden className="size-4 text-muted-foreground" />
        {t("settings")}
      </Link>
      {user?.role === "admin" ? (
        <Link
          href="/admin"
          data-testid="admin-link"
          aria-current={pathname === "/admin" ? "page" : undefined}
          className={cx(NAV_LINK, pathname === "/admin" && "bg-muted font-medium")}
        >
          <ShieldCheck aria-hidden className="size-4 text-muted-foreground" />
          {t("admin")}
        </Link>
      ) : null}
      {user ? (
        <div className="flex items-center gap-2 rounded-lg py-1 pr-1 pl-2.5">
          <UserRound aria-hidden className="size-4 shrink-0 text-muted-foreground" />
          <span className="min-w-0 flex-1 truncate text-sm" data-testid="current-user">
            {user.username}
            {user.role === "admin" ? (
              <span className="ml-1.5 text-xs text-muted-foreground">{t("adminBadge")}</span>
            ) : null}
          </span>
          <IconButton label={t("signOut")} size="sm" data-testid="sign-out" onClick={() => void signOut()}>
            <LogOut aria-hidden className="size-4" />
          </IconButton>
        </div>
      ) : null}
    </div>
  );
}
