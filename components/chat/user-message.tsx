import { memo } from "react";

/** The user's question, as typed (no Markdown), in a bubble on the right. */
export const UserMessage = memo(function UserMessage({ content }: { content: string }) {
  return (
    <div data-testid="message-user" className="flex justify-end">
      <div className="max-w-[85%] rounded-3xl bg-bubble px-4 py-2.5 text-[0.9375rem] leading-relaxed break-words whitespace-pre-wrap sm:max-w-[75%]">
        {content}
      </div>
    </div>
  );
});
