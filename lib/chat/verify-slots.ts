import "server-only";
import { processSingleton } from "@/lib/util/process-singleton";
import { Semaphore } from "@/lib/util/semaphore";

/**
 * The instance's verifier calls (docs/research.md, "Checking citations"), shared by every check —
 * a research run's verification and "Check citations" alike: at most CITATION_VERIFY_CONCURRENCY at once.
 */
export const citationVerifySlots: () => Semaphore = processSingleton("citationVerifySlots", () => new Semaphore());
