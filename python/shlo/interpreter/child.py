"""The child process of `shlo.interpreter.evaluate.run_programs`: evaluates modules in turn.

Reads {"modules": [hex bytecode...], "arguments": [[attribute text...] per module],
"results": path, "probe_dirs": [path per module], "parent": pid} on stdin and appends one JSON
line per module to the results file, {"results": [attribute text...]} or {"error": message}
(stdout stays free for `interpreter.print`).  If the interpreter aborts, the lines already
written tell the parent which module it died on.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from shlo.ir.stablehlo import evaluate, ir, make_context
from shlo.ir.worlds import ContextPolicy
from shlo.lifetime import die_with_parent


def main() -> int:
    request = json.load(sys.stdin)
    die_with_parent(request["parent"])  # an endless program must not outlive a killed parent
    with open(request["results"], "a") as results:
        for module_hex, texts, probe_dir in zip(
            request["modules"], request["arguments"], request["probe_dirs"], strict=True
        ):
            context = make_context(ContextPolicy(allow_unregistered_dialects=True, threading=False))
            module = ir.Module.parse(bytes.fromhex(module_hex), context)
            arguments = [ir.Attribute.parse(text, context) for text in texts]
            try:
                line: dict[str, Any] = {
                    "results": [str(v) for v in evaluate(module, arguments, probe_dir)]
                }
            except Exception as error:  # the binding's own errors, reported per module
                line = {"error": str(error).strip() or type(error).__name__}
            sys.stdout.flush()
            results.write(json.dumps(line) + "\n")
            results.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
