# docs/python.md's examples run, in order, in one namespace: the documentation cannot rot.
import re

import pytest


def python_blocks(text):
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_python_md_examples_run(root, capsys):
    blocks = python_blocks((root / "docs" / "python.md").read_text())
    assert len(blocks) >= 5
    namespace = {}
    for i, block in enumerate(blocks):
        try:
            exec(compile(block, f"docs/python.md block {i + 1}", "exec"), namespace)
        except Exception as e:  # noqa: BLE001 - name the block that failed
            pytest.fail(f"docs/python.md block {i + 1} failed: {type(e).__name__}: {e}\n{block}")
