import type { ReactNode } from "react";

/** The strip at the bottom of a chat that holds the composer, with an optional notice above it. */
export function ComposerDock({ notice, children }: { notice?: string | null; children: ReactNode }) {
  return (
    <div className="shrink-0 bg-background px-3 pt-1 pb-3 sm:px-4 sm:pb-4">
      <div className="mx-auto flex w-full max-w-3xl flex-col gap-2">
        {notice ? (
          <p role="alert" className="text-center text-sm text-red-700 dark:text-red-300">
            {notice}
          </p>
        ) : null}
        {children}
      </div>
    </div>
  );
}
