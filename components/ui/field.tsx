import { Loader2 } from "lucide-react";
import type { ComponentProps, ReactNode } from "react";
import { cx } from "@/lib/client/cx";

export const INPUT =
  "w-full rounded-lg border border-border bg-background px-3 py-2 text-sm outline-none transition-colors placeholder:text-muted-foreground focus-visible:border-ring focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring/50 disabled:opacity-60";

export const BUTTON_PRIMARY =
  "inline-flex items-center justify-center gap-2 rounded-lg bg-foreground px-3.5 py-2 text-sm font-medium text-background transition-opacity hover:opacity-85 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-50";

export const BUTTON_SECONDARY =
  "inline-flex items-center justify-center gap-2 rounded-lg border border-border bg-background px-3 py-1.5 text-sm font-medium transition-colors hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-50";

/** An error from the server, next to the form that caused it. */
export function InlineError({ className, ...props }: ComponentProps<"p">) {
  return (
    <p
      role="alert"
      className={cx(
        "rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-500/30 dark:bg-red-500/10 dark:text-red-200",
        className,
      )}
      {...props}
    />
  );
}

/** A form's primary button: off while the form is sent, with a spinner in place of its icon. */
export function SubmitButton({
  busy,
  icon,
  className,
  children,
  ...rest
}: Omit<ComponentProps<"button">, "type"> & { busy: boolean; icon?: ReactNode }) {
  return (
    <button type="submit" className={cx(BUTTON_PRIMARY, className)} disabled={busy} {...rest}>
      {busy ? <Loader2 aria-hidden className="size-4 animate-spin" /> : icon}
      {children}
    </button>
  );
}
