"use client";

import { Check, Copy } from "lucide-react";
import { useEffect, useState } from "react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";

/** Copies an answer's Markdown to the clipboard and says so for a moment. */
export function CopyButton({ text }: { text: string }) {
  const t = useTranslations("answer");
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);

  return (
    <IconButton
      size="sm"
      label={copied ? t("copied") : t("copy")}
      className="-ml-1.5"
      onClick={() => {
        navigator.clipboard.writeText(text).then(
          () => setCopied(true),
          (error: unknown) => console.error("[chat] copy failed", error),
        );
      }}
    >
      {copied ? <Check aria-hidden className="size-3.5" /> : <Copy aria-hidden className="size-3.5" />}
    </IconButton>
  );
}
