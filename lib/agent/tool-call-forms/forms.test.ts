import { describe, expect, it } from "vitest";
import { recogniseToolCalls } from "./registry";
import { ThinkingSplitter } from "./thinking-markup";
import { resolveToolName } from "./tool-names";

const recognise = (text: string, tools = ["web_search", "get_weather"], maxChars = 200_000) =>
  recogniseToolCalls(text, tools, { maxChars });

describe("recognising calls written as text", () => {
  it("never runs a call written inside <think>: it is reasoning", () => {
    const text =
      '<think>I could call <tool_call>{"name": "web_search", "arguments": {"query": "x"}}</tool_call></think>The answer is 4.';
    expect(recognise(text)).toEqual({ family: null, calls: [] });
  });

  it("leaves ordinary JSON whose name is no offered tool as the answer", () => {
    expect(recognise('Here is the config: {"name": "my-app", "version": "1.0"}').family).toBeNull();
    expect(recognise('[{"name": "Alice", "arguments": {}}]').family).toBeNull();
  });

  it("leaves prose that mentions an offered tool with parentheses as the answer", () => {
    expect(recognise("You can call web_search(query='x') to see it, and then carry on.").family).toBeNull();
  });

  it("counts Python-call style only for offered tools", () => {
    expect(recognise('delete_everything(path="/")').family).toBeNull();
    expect(recognise('get_weather(location="Oslo", days=3)').calls).toEqual([
      { name: "get_weather", arguments: { location: "Oslo", days: 3 } },
    ]);
  });

  it("repairs JSON one closing brace short, but not two", () => {
    expect(recognise('{"name": "web_search", "arguments": {"query": "x"}').calls).toEqual([
      { name: "web_search", arguments: { query: "x" } },
    ]);
    expect(recognise('{"name": "web_search", "arguments": {"query": {"q": "x"}').family).toBeNull();
  });

  it("runs every call of several joined by newlines, `;` or `,`", () => {
    for (const separator of ["\n", "; ", ", "]) {
      const text = [
        '{"name": "web_search", "arguments": {"query": "a"}}',
        '{"name": "get_weather", "params": {"q": "b"}}',
      ].join(separator);
      expect(recognise(text).calls.map((call) => call.name)).toEqual(["web_search", "get_weather"]);
    }
  });

  it("keeps the arguments under every key spelling, tool_input included", () => {
    for (const key of ["arguments", "parameters", "args", "input", "tool_input", "params"]) {
      expect(recognise(`{"tool_name": "web_search", "${key}": {"query": "q"}}`).calls).toEqual([
        { name: "web_search", arguments: { query: "q" } },
      ]);
    }
  });

  it("reads a JSON-RPC request whose method is an offered tool as a call of it, and one whose method is not as JSON", () => {
    const request = (method: string) => `{"jsonrpc": "2.0", "method": "${method}", "params": {"expression": "1 + 1"}}`;
    expect(recognise(request("eval"), ["eval"]).calls).toEqual([{ name: "eval", arguments: { expression: "1 + 1" } }]);
    expect(recognise(request("tools/call"), ["eval"]).family).toBeNull();
  });

  it("treats explicit call markup that holds nothing runnable as an unrunnable call, never as prose", () => {
    for (const text of [
      "<tool_call>not json</tool_call>",
      "[TOOL_CALLS]",
      '<|python_tag|>{"result": 1}',
      "<tool_code>x = 1</tool_code>",
    ]) {
      expect(recognise(text), text).toMatchObject({ calls: [] });
      expect(recognise(text).family, text).not.toBeNull();
    }
  });

  it("reads nothing over the size cap: a reply longer than TOOL_CALL_TEXT_MAX_CHARS is prose", () => {
    const text = '{"name": "web_search", "arguments": {"query": "x"}}';
    expect(recognise(text, undefined, text.length).family).toBe("json");
    expect(recognise(text, undefined, text.length - 1).family).toBeNull();
  });

  it("reads a harmony recipient written as a title with spaces whole, up to its header tokens", () => {
    const call = (header: string) => recognise(`<|channel|>commentary to=functions.${header}<|message|>{"query": "q"}`);
    expect(call("Web Search <|constrain|>json").calls).toEqual([{ name: "Web Search", arguments: { query: "q" } }]);
    expect(call("web_search json").calls).toEqual([{ name: "web_search", arguments: { query: "q" } }]);
    expect(call("web_search <|constrain|>json").calls).toEqual([{ name: "web_search", arguments: { query: "q" } }]);
    expect(recognise('commentary to=functions.web_search json{"query": "q"}').calls).toEqual([
      { name: "web_search", arguments: { query: "q" } },
    ]);
  });

  it("reads Qwen3-Coder's XML parameters with their closing tags missing", () => {
    const text =
      "<tool_call>\n<function=web_search>\n<parameter=query>\nlocal models\n<parameter=limit>\n5\n</function>";
    expect(recognise(text).calls).toEqual([{ name: "web_search", arguments: { query: "local models", limit: "5" } }]);
  });
});

describe("resolving a tool name the registry does not have", () => {
  const names = ["web_search", "fetch_url", "github__create_issue", "jira__create_issue", "files__read_file"];

  it("resolves case and -/_ differences and an MCP tool named without its server__ prefix", () => {
    expect(resolveToolName("Web-Search", names)).toBe("web_search");
    expect(resolveToolName("read_file", names)).toBe("files__read_file");
    expect(resolveToolName("get_weather<|channel|>commentary", ["get_weather"])).toBe("get_weather");
    expect(resolveToolName("functions.fetch_url", names)).toBe("fetch_url");
  });

  it("resolves nothing that is ambiguous or unknown, and guesses nothing", () => {
    expect(resolveToolName("create_issue", names)).toBeNull();
    expect(resolveToolName("search", names)).toBeNull();
    expect(resolveToolName("assistant<|channel|>analysis", names)).toBeNull();
  });
});

describe("thinking written into content", () => {
  const split = (deltas: string[]) => {
    const splitter = new ThinkingSplitter();
    const parts = [...deltas.flatMap((delta) => splitter.push(delta)), ...splitter.end()];
    const join = (type: string) =>
      parts
        .filter((part) => part.type === type)
        .map((part) => part.text)
        .join("");
    return { text: join("text"), reasoning: join("reasoning") };
  };

  it("moves <think>…</think> to reasoning as it streams, its tags split across deltas", () => {
    expect(split(["<th", "ink>Let me ", "see.</th", "ink>\n\nFour."])).toEqual({
      text: "Four.",
      reasoning: "Let me see.",
    });
  });

  it("moves harmony's analysis channel to reasoning, with and without its special tokens", () => {
    expect(
      split(["<|channel|>analysis<|message|>Greeting.<|end|>", "<|start|>assistant<|channel|>final<|message|>Hi!"]),
    ).toEqual({ text: "Hi!", reasoning: "Greeting." });
    expect(split(["analysisGreeting.", "assistantfinalHi!"])).toEqual({ text: "Hi!", reasoning: "Greeting." });
  });

  it("leaves prose that merely begins with the word analysis as the answer", () => {
    expect(split(["analysis of the data shows ", "a rise."])).toEqual({
      text: "analysis of the data shows a rise.",
      reasoning: "",
    });
  });
});
