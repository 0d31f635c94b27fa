"use client";

import { useCallback, useEffect, useRef, useState } from "react";

const NEAR_BOTTOM_PX = 48;

/**
 * Keeps a scroll container pinned to the bottom while its content grows (a streaming answer),
 * until the user scrolls up; scrolling back down (or `scrollToBottom`) pins it again.
 */
export function useStickToBottom() {
  const scrollRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const [atBottom, setAtBottom] = useState(true);

  const pin = useCallback((value: boolean) => {
    pinned.current = value;
    setAtBottom(value);
  }, []);

  const scrollToBottom = useCallback(
    (behavior: ScrollBehavior = "instant") => {
      const scroller = scrollRef.current;
      if (!scroller) return;
      pin(true);
      scroller.scrollTo({ top: scroller.scrollHeight, behavior });
    },
    [pin],
  );

  /** Stops following the bottom (the view was moved to a message above on purpose). */
  const release = useCallback(() => pin(false), [pin]);

  useEffect(() => {
    const scroller = scrollRef.current;
    const content = contentRef.current;
    if (!scroller || !content) return;
    let lastTop = scroller.scrollTop;
    const onScroll = () => {
      const top = scroller.scrollTop;
      const distance = scroller.scrollHeight - top - scroller.clientHeight;
      // Only the user moves the view up; growth of the content below must not unpin it.
      if (distance <= NEAR_BOTTOM_PX) pin(true);
      else if (top < lastTop - 1) pin(false);
      lastTop = top;
    };
    const observer = new ResizeObserver(() => {
      if (pinned.current) scroller.scrollTop = scroller.scrollHeight;
      lastTop = scroller.scrollTop;
    });
    observer.observe(content);
    scroller.addEventListener("scroll", onScroll, { passive: true });
    return () => {
      observer.disconnect();
      scroller.removeEventListener("scroll", onScroll);
    };
  }, [pin]);

  return { scrollRef, contentRef, atBottom, scrollToBottom, release };
}
