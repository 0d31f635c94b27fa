"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useErrorText } from "@/components/ui/use-error-text";
import { isAbort } from "@/lib/client/api";
import { uploadFile } from "@/lib/client/upload";
import type { SentAttachment } from "../live-turn";

/** A file in the composer: uploading (with progress), uploaded and ready to go, or refused. */
export interface PendingAttachment {
  key: string;
  filename: string;
  mime: string;
  size: number;
  state: "uploading" | "ready" | "error";
  /** 0..1 while uploading. */
  progress: number;
  error: string | null;
  uploaded: SentAttachment | null;
}

export interface Attachments {
  items: PendingAttachment[];
  /** The uploaded files, ready to be sent with the message. */
  ready: SentAttachment[];
  uploading: boolean;
  add(files: File[]): void;
  /** Drops it from the list (an uploaded file stays in the conversation). */
  remove(key: string): void;
  /** After sending: the list starts empty again. */
  clear(): void;
}

let attachmentCounter = 0;

/**
 * The composer's pending files. Each is uploaded at once to the conversation that
 * `conversationId()` gives (on a new chat that call creates the conversation).
 */
export function useAttachments({
  conversationId,
  onUploaded,
}: {
  conversationId: () => Promise<string>;
  onUploaded?: () => void;
}): Attachments {
  const errorText = useErrorText();
  const [items, setItems] = useState<PendingAttachment[]>([]);
  const controllers = useRef(new Map<string, AbortController>());
  const latest = useRef({ conversationId, onUploaded });
  useEffect(() => {
    latest.current = { conversationId, onUploaded };
  });
  useEffect(() => {
    const running = controllers.current;
    return () => {
      for (const controller of running.values()) controller.abort();
    };
  }, []);

  const patch = useCallback((key: string, change: Partial<PendingAttachment>) => {
    setItems((previous) => previous.map((item) => (item.key === key ? { ...item, ...change } : item)));
  }, []);

  const upload = useCallback(
    async (key: string, file: File) => {
      const controller = new AbortController();
      controllers.current.set(key, controller);
      try {
        const id = await latest.current.conversationId();
        const uploaded = await uploadFile({
          conversationId: id,
          file,
          signal: controller.signal,
          onProgress: (progress) => patch(key, { progress }),
        });
        patch(key, { state: "ready", progress: 1, uploaded, filename: uploaded.filename, mime: uploaded.mime });
        latest.current.onUploaded?.();
      } catch (error) {
        if (isAbort(error)) return;
        patch(key, { state: "error", error: errorText(error) });
      } finally {
        controllers.current.delete(key);
      }
    },
    [patch, errorText],
  );

  const add = useCallback(
    (files: File[]) => {
      const added = files.map((file) => ({
        file,
        item: {
          key: `attachment-${++attachmentCounter}`,
          filename: file.name,
          mime: file.type,
          size: file.size,
          state: "uploading" as const,
          progress: 0,
          error: null,
          uploaded: null,
        },
      }));
      setItems((previous) => [...previous, ...added.map(({ item }) => item)]);
      for (const { file, item } of added) void upload(item.key, file);
    },
    [upload],
  );

  const remove = useCallback((key: string) => {
    controllers.current.get(key)?.abort();
    setItems((previous) => previous.filter((item) => item.key !== key));
  }, []);

  const clear = useCallback(() => setItems([]), []);

  return useMemo(() => {
    const ready = items.flatMap((item) => (item.state === "ready" && item.uploaded ? [item.uploaded] : []));
    const uploading = items.some((item) => item.state === "uploading");
    return { items, ready, uploading, add, remove, clear };
  }, [items, add, remove, clear]);
}
