"""The child process of `shlo.interpreter.run_isolated`: evaluates modules, one JSON line each.

Reads {"modules": [hex bytecode...], "arguments": [attribute text...], "results": path,
"probe_dir": path} on stdin and appends one JSON line per module to the results file (stdout
stays free for `interpreter.print`).  If the interpreter aborts, the lines already written tell
the parent which module it died on.
"""

from __future__ import annotations

import json
import sys

from shlo.ir.stablehlo import evaluate, ir, make_context
from shlo.ir.worlds import ContextPolicy


def main() -> int:
    request = json.load(sys.stdin)
    with open(request["results"], "a") as results:
        for module_hex in request["modules"]:
            context = make_context(ContextPolicy(allow_unregistered_dialects=True, threading=False))
            module = ir.Module.parse(bytes.fromhex(module_hex), context)
            arguments = [ir.Attribute.parse(text, context) for text in request["arguments"]]
            values = evaluate(module, arguments, request["probe_dir"])
            sys.stdout.flush()
            results.write(json.dumps([str(value) for value in values]) + "\n")
            results.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
