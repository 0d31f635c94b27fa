"use client";

import { useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { useErrorText } from "@/components/ui/use-error-text";
import type { ApiError } from "@/lib/client/api";

const TITLE_MAX = 200;

/** Inline title editor: Enter or leaving the field saves, Escape cancels. */
export function RenameInput({
  initialTitle,
  onSave,
  onDone,
}: {
  initialTitle: string;
  onSave: (title: string) => Promise<ApiError | null>;
  onDone: () => void;
}) {
  const t = useTranslations("sidebar");
  const errorText = useErrorText();
  const [value, setValue] = useState(initialTitle);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const settled = useRef(false);

  const commit = async () => {
    if (settled.current || saving) return;
    const title = value.trim();
    if (!title || title === initialTitle) {
      settled.current = true;
      onDone();
      return;
    }
    setSaving(true);
    const failure = await onSave(title);
    setSaving(false);
    if (failure) {
      setError(errorText(failure));
      return;
    }
    settled.current = true;
    onDone();
  };

  return (
    <div>
      <input
        // biome-ignore lint/a11y/noAutofocus: the field appears because the user asked to rename
        autoFocus
        value={value}
        maxLength={TITLE_MAX}
        disabled={saving}
        aria-label={t("titleLabel")}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "rename-error" : undefined}
        data-testid="rename-input"
        onFocus={(event) => event.currentTarget.select()}
        onChange={(event) => {
          setValue(event.target.value);
          setError(null);
        }}
        onKeyDown={(event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            void commit();
          } else if (event.key === "Escape") {
            event.preventDefault();
            event.stopPropagation();
            settled.current = true;
            onDone();
          }
        }}
        onBlur={() => void commit()}
        className="w-full rounded-lg border border-ring bg-background px-2 py-1.5 text-sm outline-none ring-2 ring-ring/30"
      />
      {error ? (
        <p id="rename-error" role="alert" className="px-1 pt-1 text-xs text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </div>
  );
}
