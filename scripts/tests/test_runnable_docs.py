"""The runnable-docs runner (scripts/lib/runnable_docs.py, docs_blocks.py) on small Markdown files of its own."""
import io
import pathlib
import sys
import textwrap

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "lib"))
import docs_blocks  # noqa: E402
import runnable_docs  # noqa: E402


def page(tmp_path, text):
    path = tmp_path / "page.md"
    path.write_text(textwrap.dedent(text))
    return path


def test_should_collect_only_the_marked_blocks_with_what_they_need(tmp_path):
    path = page(tmp_path, """\
        # A guide
        ```bash
        echo not marked
        ```
        <!-- runnable -->
        ```bash
        echo one
        ```
        Text between.
        <!-- runnable: pipeline expect="^ready" -->
        ```sh
        curl -s "$SINK/ready"
        ```
        <!-- runnable: stack -->
        ```python
        print("three")
        ```
        """)

    blocks = runnable_docs.collect(path)

    assert [(b.line, b.lang, b.needs, b.expect) for b in blocks] == [
        (6, "bash", "none", None), (11, "sh", "pipeline", "^ready"), (15, "python", "stack", None)]
    assert blocks[0].code == "echo one\n"


@pytest.mark.parametrize("text, message", [
    ("<!-- runnable -->\nplain text\n", "must be followed by a fenced code block"),
    ("<!-- runnable -->\n```yaml\na: 1\n```\n", "bash or python"),
    ("<!-- runnable -->\n```bash\necho never closed\n", "never closed"),
    ('<!-- runnable: stack timeout="5" -->\n```bash\necho\n```\n', "unknown marker attribute 'timeout'"),
    ('<!-- runnable: pipeline ranks="2" -->\n```bash\necho\n```\n', "for python blocks only"),
    ('<!-- runnable: pipeline ranks="none" -->\n```python\nprint()\n```\n', "a number of processes"),
])
def test_should_refuse_a_marker_it_cannot_honour(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        runnable_docs.collect(page(tmp_path, text))


def test_should_pass_a_block_that_succeeds_and_fail_one_that_does_not(tmp_path):
    blocks = runnable_docs.collect(page(tmp_path, """\
        <!-- runnable -->
        ```bash
        test -f mkdocs.yml && echo "in the checkout"
        ```
        <!-- runnable -->
        ```bash
        echo before
        false
        echo never printed
        ```
        """))

    passed, output = runnable_docs.run(blocks[0], {"PATH": "/usr/bin:/bin"}, 30)
    failed, report = runnable_docs.run(blocks[1], {"PATH": "/usr/bin:/bin"}, 30)

    assert passed and "in the checkout" in output
    assert not failed and report.startswith("exit code 1") and "before" in report and "never printed" not in report


def test_should_fail_a_block_whose_output_does_not_match_its_expectation(tmp_path):
    blocks = runnable_docs.collect(page(tmp_path, """\
        <!-- runnable: none expect="^shardflow_ingest_samples_accepted_total [0-9.]+$" -->
        ```bash
        echo "shardflow_ingest_samples_accepted_total 3.0"
        ```
        <!-- runnable: none expect="^ready$" -->
        ```bash
        echo "not ready"
        ```
        """))

    assert runnable_docs.run(blocks[0], {"PATH": "/usr/bin:/bin"}, 30)[0]
    passed, report = runnable_docs.run(blocks[1], {"PATH": "/usr/bin:/bin"}, 30)
    assert not passed and "does not match" in report


def test_should_stop_a_block_that_runs_past_its_time(tmp_path):
    blocks = runnable_docs.collect(page(tmp_path, "<!-- runnable -->\n```bash\nsleep 5\n```\n"))

    passed, report = runnable_docs.run(blocks[0], {"PATH": "/usr/bin:/bin"}, 1)

    assert not passed and "timed out" in report


def test_should_run_python_blocks_with_the_project_package_importable(tmp_path):
    blocks = runnable_docs.collect(page(tmp_path, """\
        <!-- runnable -->
        ```python
        import shardflow, pathlib
        print(pathlib.Path(shardflow.__file__).parent.name)
        ```
        """))

    passed, output = runnable_docs.run(blocks[0], {"PATH": "/usr/bin:/bin"}, 60)

    assert passed, output
    assert output.strip() == "shardflow"


def test_should_find_the_marked_blocks_of_the_committed_docs():
    blocks = [b for path in runnable_docs.default_files() for b in runnable_docs.collect(path)]

    assert any(b.needs == "pipeline" for b in blocks), "the monitoring guide marks blocks against a running pipeline"
    assert any(b.needs == "none" for b in blocks)


def test_should_run_a_ranks_block_as_that_many_processes_with_the_environment_torchrun_gives(tmp_path):
    blocks = runnable_docs.collect(page(tmp_path, """\
        <!-- runnable: pipeline ranks="3" expect="^\\[rank 2\\] 2 of 3 at 127.0.0.1" -->
        ```python
        import os
        print(os.environ["RANK"], "of", os.environ["WORLD_SIZE"], "at", os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"])
        ```
        <!-- runnable: pipeline ranks="2" -->
        ```python
        import os, sys
        sys.exit(int(os.environ["RANK"]))
        ```
        """))

    passed, output = runnable_docs.run(blocks[0], {"PATH": "/usr/bin:/bin"}, 60)
    failed, report = runnable_docs.run(blocks[1], {"PATH": "/usr/bin:/bin"}, 60)

    assert passed, output
    ports = {line.split()[-1] for line in output.splitlines()}
    assert len(output.splitlines()) == 3 and len(ports) == 1, "every rank meets the others at the same port"
    assert not failed and report.startswith("exit code 1"), "one failing rank fails the block"


def test_should_put_the_project_python_first_on_the_path_of_shell_blocks(tmp_path):
    blocks = runnable_docs.collect(page(tmp_path, "<!-- runnable -->\n```bash\ncommand -v python3\n```\n"))

    passed, output = runnable_docs.run(blocks[0], {"PATH": "/usr/bin:/bin"}, 30)

    assert passed, output
    assert output.strip() == str(pathlib.Path(runnable_docs.python_for_blocks()).parent / "python3")


def test_should_count_runnable_excused_and_unmarked_blocks_and_name_each_unmarked_one(tmp_path):
    path = page(tmp_path, """\
        <!-- runnable -->
        ```bash
        echo run
        ```
        <!-- not runnable: needs a Kubernetes cluster -->
        ```bash
        kubectl apply -k k8s/overlays/prod
        ```
        ```python
        print("nobody said")
        ```
        ```yaml
        not: code
        ```
        """)
    report = io.StringIO()

    unmarked = docs_blocks.coverage([path], report)

    assert unmarked == 1
    lines = report.getvalue().splitlines()
    assert lines[0] == "code blocks: 1 runnable, 1 not runnable, 1 unmarked"
    assert any("page.md:6 (bash): needs a Kubernetes cluster" in line for line in lines)
    assert any(line.startswith("  UNMARKED") and "page.md:9 (python)" in line for line in lines)


def test_should_fail_a_run_and_the_coverage_check_while_a_block_is_unmarked(tmp_path, capsys):
    path = page(tmp_path, "<!-- runnable -->\n```bash\necho fine\n```\n\n```sh\necho unmarked\n```\n")

    assert runnable_docs.main(["--coverage", str(path)]) == 1
    assert runnable_docs.main([str(path)]) == 1
    assert "UNMARKED" in capsys.readouterr().out
    path.write_text(path.read_text().replace("\n```sh", "\n<!-- not runnable: an example -->\n```sh"))
    assert runnable_docs.main(["--coverage", str(path)]) == 0


@pytest.mark.parametrize("text, message", [
    ("<!-- not runnable: -->\n```bash\necho\n```\n", "says why"),
    ("<!-- not runnable: why -->\ntext\n", "must be followed by a fenced code block"),
    ('<!-- runnable: pipeline expect="a"b" -->\n```bash\necho\n```\n', "does not parse"),
])
def test_should_refuse_a_marker_that_says_too_little_or_does_not_parse(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        docs_blocks.scan(page(tmp_path, text))


def test_should_take_an_expectation_holding_double_quotes_in_single_quotes(tmp_path):
    blocks = runnable_docs.collect(page(tmp_path, """\
        <!-- runnable expect='"accepted":1,' -->
        ```bash
        echo '{"accepted":1,"rejected":0}'
        ```
        """))

    assert blocks[0].expect == '"accepted":1,'
    assert runnable_docs.run(blocks[0], {"PATH": "/usr/bin:/bin"}, 30)[0]


def test_should_carry_a_pages_shell_variables_into_its_next_shell_block_as_one_terminal_would(tmp_path):
    first, second, alone = runnable_docs.collect(page(tmp_path, """\
        <!-- runnable -->
        ```bash
        TOKEN=$(echo sfgw_123)
        export URL=http://127.0.0.1:1
        ```
        <!-- runnable expect="^sfgw_123 http://127.0.0.1:1$" -->
        ```bash
        echo "$TOKEN $URL"
        ```
        <!-- runnable -->
        ```bash
        echo "${TOKEN:-unset}"
        ```
        """))
    state = tmp_path / "state.sh"
    env = {"PATH": "/usr/bin:/bin"}

    assert runnable_docs.run(first, env, 30, state)[0]
    passed, output = runnable_docs.run(second, env, 30, state)
    assert passed, output
    assert runnable_docs.run(alone, env, 30)[1].strip() == "unset", "without the page's state a block starts afresh"
