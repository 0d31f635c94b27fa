import { z } from "zod";

/**
 * zod as every schema the browser runs is built with (docs/security.md, "Answers in the browser").
 * zod compiles an object schema's parser with `new Function` after probing whether it may, and the
 * page's policy has no 'unsafe-eval': the probe alone is reported as a violation. Jitless parsing
 * gives the same results. The setting is read when a schema is built, so a module whose schemas
 * reach the browser imports `z` from here, never from "zod" itself.
 */
z.config({ jitless: true });

export { z };
