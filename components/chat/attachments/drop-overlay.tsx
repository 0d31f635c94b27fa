"use client";

import { Paperclip } from "lucide-react";
import { useTranslations } from "use-intl";

/** Shown over the chat while files are dragged onto it. */
export function DropOverlay() {
  const t = useTranslations("attachments");
  return (
    <div
      data-testid="drop-overlay"
      className="pointer-events-none absolute inset-2 z-20 grid place-items-center rounded-2xl border-2 border-dashed border-ring/60 bg-background/85 backdrop-blur-[2px]"
    >
      <div className="flex flex-col items-center gap-2 text-center">
        <span className="grid size-11 place-items-center rounded-full bg-muted">
          <Paperclip aria-hidden className="size-5" />
        </span>
        <p className="text-base font-medium">{t("dropTitle")}</p>
        <p className="text-sm text-muted-foreground">{t("dropTypes")}</p>
      </div>
    </div>
  );
}
