import { pythonCalls } from "../python-call";
import type { ToolCallForm } from "../types";

/** A reply that is nothing but Python-style calls of offered tools (Granite 3.3, Llama 4 pythonic). */
export const pythonCallForm: ToolCallForm = {
  family: "python_call",
  recognise(text, context) {
    return text.includes("(") ? pythonCalls(text, context) : null;
  },
};
