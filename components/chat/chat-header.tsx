"use client";

import type { ReactNode } from "react";
import { PageHeader } from "@/components/shell/page-header";
import { withoutBidiControls } from "@/lib/text/bidi-controls";

/** The bar above a chat: the title (a model wrote it: no bidi controls) and, on the right, the model picker. */
export function ChatHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <PageHeader title={withoutBidiControls(title)} titleTestId="conversation-title-heading">
      {children}
    </PageHeader>
  );
}
