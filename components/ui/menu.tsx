"use client";

import {
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";

/** What the button that opens a menu spreads on itself (its look, name and test id are its own). */
export interface MenuButtonProps {
  ref: RefObject<HTMLButtonElement | null>;
  type: "button";
  "aria-haspopup"?: "menu";
  "aria-expanded": boolean;
  "aria-controls"?: string;
  disabled?: boolean;
  onClick: () => void;
}

/**
 * What the opened panel spreads on itself (a `nav`, a `fieldset`, a `div`). A `kind="menu"` panel
 * writes its `role="menu"` itself, where the linter checks the ARIA around it.
 */
export interface MenuPanelProps {
  ref: (element: HTMLElement | null) => void;
  id: string;
  tabIndex?: -1;
  onKeyDown: (event: KeyboardEvent<HTMLElement>) => void;
}

/** The look of an opened panel (light and dark): its place and padding are the caller's. */
export const MENU_PANEL = "rounded-xl border border-border bg-popover text-popover-foreground shadow-lg";

/** The look of a toolbar's text button that opens a menu (the chat header's Export and files). */
export const MENU_BUTTON =
  "flex items-center gap-1.5 rounded-lg px-2 py-1.5 text-sm text-muted-foreground transition-colors hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-50 disabled:hover:bg-transparent";

/** The panel's items the keyboard moves between: a menu's `menuitem`s, else whatever takes focus. */
const ITEMS = {
  menu: "[role=menuitem]",
  panel:
    "a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex='-1'])",
} as const;

/**
 * A button that opens a panel, the one shell of every menu: the open panel takes the focus on its
 * first item; arrows, Home and End move between its items; Escape closes it and gives the focus back
 * to the button (and is used up: no running answer stops, no drawer closes); a pointer press outside
 * closes it. `kind="menu"` is an ARIA menu (`menuitem`s, Tab leaves and closes it); a `panel` holds
 * links or fields, through which Tab moves as anywhere. While `disabled`, the panel stays closed.
 */
export function Menu({
  kind = "panel",
  className,
  disabled,
  onOpen,
  button,
  children,
}: {
  kind?: "menu" | "panel";
  /** The wrapper's, which the panel is placed against. */
  className?: string;
  disabled?: boolean;
  /** Called as the panel opens (to read its content again). */
  onOpen?: () => void;
  button: (props: MenuButtonProps) => ReactNode;
  /** The panel, given its props and `close` (for an item that was chosen). */
  children: (panel: MenuPanelProps, close: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLElement>(null);
  const panelId = useId();
  const shown = open && !disabled;
  const close = useCallback(() => setOpen(false), []);
  const setPanel = useCallback((element: HTMLElement | null) => {
    panelRef.current = element;
  }, []);

  const items = () => [...(panelRef.current?.querySelectorAll<HTMLElement>(ITEMS[kind]) ?? [])];

  // biome-ignore lint/correctness/useExhaustiveDependencies: `items` reads the panel's DOM as it is now
  useEffect(() => {
    if (!shown) return;
    items()[0]?.focus();
    const onPointerDown = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    // On the document, so it works wherever the focus is; window's listeners (the shortcuts, the
    // phone drawer) come after and do not see it.
    const onKeyDown = (event: globalThis.KeyboardEvent) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation();
      setOpen(false);
      buttonRef.current?.focus();
    };
    document.addEventListener("pointerdown", onPointerDown);
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("pointerdown", onPointerDown);
      document.removeEventListener("keydown", onKeyDown);
    };
  }, [shown]);

  const onPanelKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (kind === "menu" && event.key === "Tab") {
      setOpen(false);
      return;
    }
    const all = items();
    const at = all.indexOf(document.activeElement as HTMLElement);
    const move: Record<string, number> = {
      ArrowDown: (at + 1) % all.length,
      ArrowUp: (at <= 0 ? all.length : at) - 1,
      Home: 0,
      End: all.length - 1,
    };
    if (!(event.key in move) || all.length === 0) return;
    event.preventDefault();
    all[move[event.key] as number]?.focus();
  };

  return (
    <div ref={root} className={className}>
      {button({
        ref: buttonRef,
        type: "button",
        "aria-haspopup": kind === "menu" ? "menu" : undefined,
        "aria-expanded": shown,
        "aria-controls": shown ? panelId : undefined,
        disabled,
        onClick: () => {
          if (!open) onOpen?.();
          setOpen(!open);
        },
      })}
      {shown
        ? children(
            {
              ref: setPanel,
              id: panelId,
              tabIndex: kind === "menu" ? -1 : undefined,
              onKeyDown: onPanelKeyDown,
            },
            close,
          )
        : null}
    </div>
  );
}
