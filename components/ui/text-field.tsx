"use client";

import { type ChangeEvent, type ComponentProps, createElement, type ReactNode, useId } from "react";
import { cx } from "@/lib/client/cx";
import { INPUT } from "./field";

interface FieldProps {
  label: string;
  /** Under the control, which it describes (`aria-describedby`). */
  hint?: ReactNode;
  /** The small, muted label of a dense form (several fields in a row). */
  compact?: boolean;
  /** Monospaced, for commands, URLs, names and tokens. */
  mono?: boolean;
  /**
   * Typed exactly as it will be read (names, commands, URLs, tokens): no spell check, no capital
   * first letter, no autofill unless `autoComplete` says otherwise.
   */
  verbatim?: boolean;
  /** Added to the control's. */
  className?: string;
  onChange: (value: string) => void;
}

type Control<E extends "input" | "textarea" | "select"> = FieldProps &
  Omit<ComponentProps<E>, "id" | "className" | "onChange" | keyof FieldProps>;

/**
 * A label over a control and an optional hint under it: the one frame of every form field. The
 * control is named by the label and described by the hint and by any `aria-describedby` given.
 */
function Field({
  label,
  hint,
  compact,
  describedBy,
  children,
}: {
  label: string;
  hint?: ReactNode;
  compact?: boolean;
  describedBy?: string;
  children: (control: { id: string; "aria-describedby"?: string }) => ReactNode;
}) {
  const id = useId();
  const hintId = useId();
  const described = [hint ? hintId : null, describedBy].filter(Boolean).join(" ") || undefined;
  return (
    <div className={compact ? "space-y-1" : "space-y-1.5"}>
      <label htmlFor={id} className={compact ? "text-xs font-medium text-muted-foreground" : "text-sm font-medium"}>
        {label}
      </label>
      {children({ id, "aria-describedby": described })}
      {hint ? (
        <p id={hintId} className="text-xs text-muted-foreground">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

const VERBATIM = { spellCheck: false, autoCapitalize: "none", autoComplete: "off" } as const;

/** The field of one kind of control, which takes the rest of its props as that control does. */
function ControlField<E extends "input" | "textarea" | "select">({
  tag,
  label,
  hint,
  compact,
  mono,
  verbatim,
  className,
  onChange,
  ...rest
}: Control<E> & { tag: E }) {
  const { "aria-describedby": describedBy } = rest as { "aria-describedby"?: string };
  return (
    <Field label={label} hint={hint} compact={compact} describedBy={describedBy}>
      {(control) =>
        createElement(tag, {
          ...(verbatim ? VERBATIM : {}),
          ...rest,
          ...control,
          className: cx(INPUT, mono && "font-mono", className),
          onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) =>
            onChange(event.target.value),
        })
      }
    </Field>
  );
}

/** A labelled text input (`type` password, url, …); `onChange` gets the new value. */
export function TextField(props: Control<"input">) {
  return <ControlField tag="input" {...props} />;
}

/** A labelled text area, for lines of input (arguments, one per line). */
export function TextAreaField(props: Control<"textarea">) {
  return <ControlField tag="textarea" {...props} />;
}

/** A labelled select; its options are the children. */
export function SelectField(props: Control<"select">) {
  return <ControlField tag="select" {...props} />;
}
