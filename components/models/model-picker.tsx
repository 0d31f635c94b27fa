"use client";

import { Check, ChevronDown, TriangleAlert } from "lucide-react";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";
import { formatBytes } from "@/lib/client/format";
import type { ModelInfo } from "@/lib/client/types";
import { CapabilityBadges } from "./capability-badges";
import { groupModels, modelDisplayName, modelNameParts } from "./model-name";
import { useModels } from "./use-models";

/**
 * A listbox of the installed models with their capabilities, Ollama's first, then each
 * OpenAI-compatible server's under its label (a name two servers have is two choices); keyboard:
 * arrows, Home/End, Enter, Escape.
 */
export function ModelPicker({ value, onChange }: { value: string | null; onChange: (model: string) => void }) {
  const t = useTranslations("models");
  const { models: listed, status, error, find } = useModels();
  const groups = groupModels(listed);
  const grouped = groups.some((group) => group.server !== null);
  // The order shown, which the arrows follow.
  const models = groups.flatMap((group) => group.models);
  const [open, setOpen] = useState(false);
  const [activeIndex, setActiveIndex] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const listId = useId();
  const selected = find(value);

  useEffect(() => {
    if (!open) return;
    list.current?.focus();
    const onPointerDown = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [open]);

  useEffect(() => {
    if (open) document.getElementById(`${listId}-${activeIndex}`)?.scrollIntoView({ block: "nearest" });
  }, [open, activeIndex, listId]);

  const show = () => {
    setActiveIndex(
      Math.max(
        0,
        models.findIndex((model) => model.name === value),
      ),
    );
    setOpen(true);
  };
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const choose = (name: string) => {
    close();
    if (name !== value) onChange(name);
  };

  const onListKeyDown = (event: KeyboardEvent) => {
    const last = models.length - 1;
    const moves: Record<string, number> = {
      ArrowDown: activeIndex >= last ? 0 : activeIndex + 1,
      ArrowUp: activeIndex <= 0 ? last : activeIndex - 1,
      Home: 0,
      End: last,
    };
    if (event.key in moves) {
      event.preventDefault();
      setActiveIndex(moves[event.key] ?? 0);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      const model = models[activeIndex];
      if (model) choose(model.name);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === "Tab") {
      setOpen(false);
    }
  };

  const option = (model: ModelInfo) => {
    const index = models.indexOf(model);
    return (
      <ModelOption
        key={model.name}
        id={`${listId}-${index}`}
        model={model}
        selected={model.name === value}
        active={index === activeIndex}
        onChoose={() => choose(model.name)}
        onHover={() => setActiveIndex(index)}
      />
    );
  };

  const unavailable = status === "error" || (status === "ready" && models.length === 0);
  const label =
    (value === null ? null : modelDisplayName(value, selected)) ??
    (status === "loading"
      ? t("loading")
      : status === "error"
        ? t("unavailable")
        : models.length === 0
          ? t("none")
          : t("choose"));
  const missing = status === "ready" && value !== null && !selected;
  const shown = value === null ? null : modelNameParts(value, selected);

  return (
    <div ref={root} className="relative">
      <button
        ref={button}
        type="button"
        data-testid="model-picker"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        aria-label={t("pickerLabel", { label })}
        title={status === "error" ? (error ?? undefined) : missing ? t("notInstalled", { model: value }) : undefined}
        disabled={status === "loading" || unavailable}
        onClick={() => (open ? close() : show())}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" || event.key === "ArrowUp") {
            event.preventDefault();
            show();
          }
        }}
        className="flex max-w-[11rem] items-center gap-1.5 rounded-lg px-2.5 py-1.5 text-sm font-medium text-foreground/90 transition-colors hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-60 sm:max-w-xs"
      >
        {(selected && !selected.abilities.tool_call) || missing ? (
          <TriangleAlert aria-hidden className="size-3.5 shrink-0 text-amber-500" />
        ) : null}
        <span className="truncate">{shown ? shown.model : label}</span>
        {shown?.server ? (
          <span data-testid="model-picker-server" className="shrink-0 text-xs font-normal text-muted-foreground">
            {shown.server}
          </span>
        ) : null}
        <ChevronDown aria-hidden className={cx("size-4 shrink-0 text-muted-foreground", open && "rotate-180")} />
      </button>
      {open ? (
        <div
          ref={list}
          id={listId}
          role="listbox"
          tabIndex={-1}
          aria-label={t("listLabel")}
          aria-activedescendant={`${listId}-${activeIndex}`}
          onKeyDown={onListKeyDown}
          className="absolute top-full right-0 z-30 mt-1.5 max-h-[min(24rem,70dvh)] w-[min(20rem,calc(100vw-1.5rem))] overflow-y-auto rounded-xl border border-border bg-popover p-1 text-popover-foreground shadow-lg outline-none"
        >
          {grouped
            ? groups.map((group) => {
                const headingId = `${listId}-group-${group.server ?? ""}`;
                return (
                  // biome-ignore lint/a11y/useSemanticElements: a listbox groups its options with role="group"; a fieldset belongs to forms
                  <div key={group.server ?? ""} role="group" aria-labelledby={headingId} data-testid="model-group">
                    <div id={headingId} className="px-2 pt-2 pb-1 text-[0.6875rem] font-medium text-muted-foreground">
                      {group.server === null ? t("ollamaGroup") : t("serverGroup", { label: group.server })}
                    </div>
                    {group.models.map(option)}
                  </div>
                );
              })
            : models.map(option)}
        </div>
      ) : null}
    </div>
  );
}

function ModelOption({
  id,
  model,
  selected,
  active,
  onChoose,
  onHover,
}: {
  id: string;
  model: ModelInfo;
  selected: boolean;
  active: boolean;
  onChoose: () => void;
  onHover: () => void;
}) {
  const t = useTranslations("models");
  const { model: own, server } = modelNameParts(model.name, model);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: keyboard selection is handled by the listbox (aria-activedescendant)
    <div
      id={id}
      role="option"
      tabIndex={-1}
      aria-selected={selected}
      data-testid="model-option"
      data-model={model.name}
      onClick={onChoose}
      onMouseMove={onHover}
      className={cx("flex cursor-pointer items-start gap-2 rounded-lg px-2 py-2", active && "bg-muted")}
    >
      <Check aria-hidden className={cx("mt-0.5 size-4 shrink-0", selected ? "text-foreground" : "invisible")} />
      <div className="min-w-0 flex-1">
        <div className="flex items-baseline justify-between gap-2">
          <span className="flex min-w-0 items-baseline gap-1.5">
            <span className="truncate text-sm font-medium">{own}</span>
            {server ? (
              <span
                data-testid="model-server"
                title={t("serverTitle", { label: server })}
                className="shrink-0 rounded-full bg-muted px-1.5 py-0.5 text-[0.6875rem] leading-none font-medium text-muted-foreground"
              >
                <span className="sr-only"> · </span>
                {server}
              </span>
            ) : null}
          </span>
          <span className="shrink-0 text-xs text-muted-foreground">
            {[model.parameterSize, model.sizeBytes ? formatBytes(model.sizeBytes) : null].filter(Boolean).join(" · ")}
          </span>
        </div>
        <div className="mt-1 flex flex-wrap items-center gap-1.5">
          <CapabilityBadges model={model} />
          {model.abilities.tool_call ? null : (
            <span className="text-[0.6875rem] text-amber-700 dark:text-amber-400">{t("noTools")}</span>
          )}
        </div>
      </div>
    </div>
  );
}
