// Package llm holds macrokit's model port: adapters (OpenAI-compatible incl.
// Ollama, record and replay), tool-call normalisation, and the parsing that
// turns a weak model's text back into a structured answer — in bounded,
// cancellable work ([Scanner], [MaxScanBytes]), since model text is
// outside input. The offline
// scripted model is package [github.com/macrokit/macrokit-go/llm/script].
//
// # Recovering described calls
//
// [RecoverCall] reads back the one tool call a weak model described in
// its text instead of making it. It proposes; the caller validates,
// grounds and confirms. The rules:
//
//   - The tool. The text (reasoning blocks removed) must name exactly one
//     registered tool: a whole word of letters, digits, '_' and '-' equal
//     to a registered name ignoring ASCII case, anywhere — prose, a JSON
//     key or value, a list item. Two or more names is [ErrAmbiguousTool]
//     (the error's Names list them), never a guess; none is [ErrNoCall].
//     Words that are not registered names ("name": "Ada") do not count; a
//     registered name inside an argument's value does.
//   - The shapes ([Described].Shape): a {"name", "arguments"} object
//     (name also "tool", "function", "tool_name"; arguments also
//     "parameters", "args", "input", possibly a JSON string; wrapped in
//     {"function": {...}} or {"tool_calls": [...]}), fenced or not
//     (name_arguments); {"name": tool, "owner": ...} (name_flat);
//     tool(key=value, ...) or tool(key: value) with ' or " strings,
//     numbers, true/false/True/False, null/None, lists, or tool({...})
//     (function_call); an arguments object after the tool's name, in a
//     fence (fenced_json) or in prose (args_after_name); key: value lines
//     in a code fence, nested by indentation, "- item" lists (yaml); a
//     bulleted or numbered list of key: value items (key_value_list). A
//     member naming the tool ("macro": "triage_issue") is not an argument,
//     and a lone member named after the tool or "arguments" holding an
//     object ({"triage_issue": {...}}) is unwrapped.
//   - Which one. A call that names the tool (an object or tool(...)) wins
//     over arguments read after its name; two of them with different
//     arguments are [ErrAmbiguousArgs], the same call written twice is
//     one. Without such a call, the first arguments object or list after
//     the tool is first named counts (an object before the name does
//     not). A call object naming an unregistered name is skipped, never
//     read as this tool's arguments.
//   - Truncation. An object, array or tool( that never closes (within its
//     fence) keeps its complete members and its last one only when its
//     value is provably whole: a closed string, object or array, or a
//     whole true/false/null. A string cut mid-way, a number (4 may be 42
//     cut) and a key without a value are dropped and listed in Dropped;
//     Truncated is set. A cut-off call must agree with a whole one beside
//     it.
//   - Values. Numbers are json.Number, as JSON reads them; almost-JSON is
//     repaired by [Repair]. In a list item a bare value is text as
//     written, minus a trailing comment (" (since ...)", " # ...",
//     " // ...") and a sentence's final '.', ',' or ';' — quote a value
//     to keep those; in tool(...) a bare value is one token (v1.2.0), and
//     a positional argument makes the call unreadable.
//   - Not a call ([ErrNoCall]): a tool named without arguments in any of
//     these shapes ("I can run triage_issue if you tell me the number"),
//     {"name": tool} alone, prose lines "Note: ..." outside a list or
//     fence. An explicit empty call — tool() or "arguments": {} — is a
//     call with no arguments.
//
// The work is linear in the text's length, metered by a [Scanner] (bracket
// matching shared with every reader, each object decoded once, a cut-off
// fragment read from each offset at most once), bounded by [MaxScanBytes]
// ([ErrTextTooLarge]) and the scanner's budget ([ErrScanBudget]), and it
// ends with the context.
package llm
