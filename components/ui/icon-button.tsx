import type { ComponentProps, ReactNode } from "react";
import { cx } from "@/lib/client/cx";

type IconButtonProps = Omit<ComponentProps<"button">, "aria-label" | "children"> & {
  /** Required: icon-only buttons need a name for screen readers. */
  label: string;
  children: ReactNode;
  size?: "sm" | "md";
};

/** A square, labelled button holding one icon. */
export function IconButton({ label, children, className, size = "md", type = "button", ...rest }: IconButtonProps) {
  return (
    <button
      type={type}
      aria-label={label}
      title={label}
      className={cx(
        "inline-flex shrink-0 items-center justify-center rounded-lg text-muted-foreground transition-colors",
        "hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring",
        "disabled:pointer-events-none disabled:opacity-40 aria-disabled:cursor-not-allowed aria-disabled:opacity-40",
        size === "sm" ? "size-7" : "size-9",
        className,
      )}
      {...rest}
    >
      {children}
    </button>
  );
}
