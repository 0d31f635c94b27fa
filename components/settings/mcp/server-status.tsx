import { CircleAlert, CircleCheck, CircleDashed, CircleOff, Loader2 } from "lucide-react";
import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";
import type { McpServerState } from "@/lib/client/types";

const STYLE: Record<McpServerState["status"], string> = {
  connected: "bg-emerald-50 text-emerald-900 dark:bg-emerald-400/10 dark:text-emerald-200",
  connecting: "bg-sky-50 text-sky-900 dark:bg-sky-400/10 dark:text-sky-200",
  idle: "bg-muted text-muted-foreground",
  disabled: "bg-muted text-muted-foreground",
  error: "bg-red-50 text-red-800 dark:bg-red-500/10 dark:text-red-200",
};

const ICON = {
  connected: CircleCheck,
  connecting: Loader2,
  idle: CircleDashed,
  disabled: CircleOff,
  error: CircleAlert,
} as const;

/** A server's connection state as a badge: connected (with the transport in use), idle, error… */
export function ServerStatus({ state }: { state: McpServerState }) {
  const t = useTranslations("mcp");
  const Icon = ICON[state.status];
  return (
    <span
      data-testid="mcp-status"
      data-status={state.status}
      className={cx("inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium", STYLE[state.status])}
    >
      <Icon aria-hidden className={cx("size-3.5", state.status === "connecting" && "animate-spin")} />
      {t(`status.${state.status}`)}
      {state.status === "connected" && state.transportInUse ? ` · ${state.transportInUse}` : null}
    </span>
  );
}
