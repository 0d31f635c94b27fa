/**
 * An export's pieces as a response body, one piece a pull: the next piece (the next conversation,
 * the next file's content) is read only when the client has taken the last one, so a slow
 * download holds one piece, not the whole export.
 */
export function pulledStream(pieces: AsyncGenerator<string | Uint8Array>, what: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await pieces.next();
          if (done) controller.close();
          else controller.enqueue(typeof value === "string" ? encoder.encode(value) : value);
        } catch (error) {
          console.error(`[export] ${what} failed`, error);
          controller.error(error);
        }
      },
      async cancel() {
        await pieces.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
