"use client";

import type { ReactNode } from "react";
import { PageHeader } from "@/components/shell/page-header";

/** The bar above a chat: the title and, on the right, the model picker. */
export function ChatHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <PageHeader title={title} titleTestId="conversation-title-heading">
      {children}
    </PageHeader>
  );
}
