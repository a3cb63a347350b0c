"""The README and its four reader pages (docs/writing-laws.md, docs/checking-a-model.md, docs/routes.md,
docs/ci.md) say what the code does, as tests/fixtures/test_readme_kit.py checks the scene-kit table:
their relative links lead to files and headings that exist, the options and ini keys of the CI page's
options table are the plugin's, the `pytest-physlaw` subcommands they show are the CLI's, and every law
of the model pack and of its routes has its row. Read from the source and the text (ast, regular
expressions): nothing of the plugin, MuJoCo or a route is imported."""

from __future__ import annotations

import ast
import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_physlaw"
READERS = ("docs/writing-laws.md", "docs/checking-a-model.md", "docs/routes.md", "docs/ci.md")
GENERATED = ("docs/laws.md",)  # the law catalogue: written by --law-spec, not by hand
# Options of other plugins that the CI page's options table names, and the module that registers each.
FOREIGN_OPTIONS = {"--hypothesis-profile": "_hypothesis_pytestplugin"}
INSTALL = ('python3.11 -m venv .venv && .venv/bin/pip install -e ".[dev]" && .venv/bin/pytest -m law\n'
           'python3.11 -m venv .venv && .venv/bin/pip install -e ".[dev]" && .venv/bin/pytest -n 2 --dist loadfile\n')

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`([^`]+)`")
LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6}) +(.+?) *#* *$", re.MULTILINE)
SUBCOMMAND = re.compile(r"(?:pytest-physlaw|python -m pytest_physlaw)\s+([a-z][\w-]*)")


def pages() -> list[str]:
    """The README and every hand-written page directly under docs/ (not the catalogue, not the gap pages)."""
    docs = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))
    return ["README.md", *(p for p in docs if p not in GENERATED)]


def read(page: str) -> str:
    return (ROOT / page).read_text(encoding="utf-8")


def prose(text: str) -> str:
    """The text without its fenced code blocks and with each code span as a placeholder: what a
    Markdown renderer reads links and headings from."""
    return CODE_SPAN.sub(lambda m: "CODE", FENCE.sub("", text))


def code(text: str) -> list[str]:
    """The fenced code blocks and the code spans of the text, as written."""
    blocks = FENCE.findall(text)
    return [*blocks, *CODE_SPAN.findall(FENCE.sub("", text))]


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation (backticks, colons, dots...) dropped,
    spaces as hyphens."""
    text = LINK.sub(lambda m: m.group(1), heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    for _, title in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        base = slug(title)
        name, n = base, 0
        while name in found:  # a repeated heading gets -1, -2, ...
            n += 1
            name = f"{base}-{n}"
        found.add(name)
    return found


def links(page: str) -> list[str]:
    """The relative link targets of a page (no web addresses, no mail)."""
    return [target for _, target in LINK.findall(prose(read(page)))
            if not re.match(r"[a-z][a-z0-9+.-]*:", target)]


def section(page: str, title: str) -> str:
    """A page's section at whatever heading level, up to the next heading of that level or above."""
    text = read(page)
    heading = re.search(rf"^(#+) {re.escape(title)} *$", text, re.MULTILINE)
    assert heading, f"{page} has no section '{title}'"
    rest = text[heading.end():]
    end = re.search(rf"^#{{1,{len(heading.group(1))}}} ", FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), rest),
                    re.MULTILINE)
    return rest[:end.start()] if end else rest


def modules(folder: Path) -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in sorted(folder.glob("*.py"))]


# -- what the code defines, read from its source ------------------------------------------------------------------


def literals(tree: ast.Module) -> dict[str, object]:
    """The module's top-level names bound to a literal (a dict, a tuple, a string...)."""
    found = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else (
            node.target if isinstance(node, ast.AnnAssign) and node.value is not None else None)
        if isinstance(target, ast.Name):
            try:
                found[target.id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return found


def loop_values(tree: ast.Module) -> dict[int, dict[str, list[object]]]:
    """For each node inside a `for NAME[, ...] in LITERAL[.items()|.keys()]:` loop, the values NAME takes."""
    names = literals(tree)
    out: dict[int, dict[str, list[object]]] = {}
    for loop in (n for n in ast.walk(tree) if isinstance(n, ast.For)):
        it = loop.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in ("items", "keys"):
            it = it.func.value
        if not isinstance(it, ast.Name) or it.id not in names:
            continue
        first = loop.target.elts[0] if isinstance(loop.target, ast.Tuple) else loop.target
        if isinstance(first, ast.Name):
            for inner in ast.walk(loop):
                out.setdefault(id(inner), {})[first.id] = list(names[it.id])  # dict: its keys
    return out


def string_values(node: ast.expr, bound: dict[str, list[object]]) -> list[str] | None:
    """The strings an argument can be: a constant, or an f-string over one loop variable; None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        names = {v.value.id for v in node.values if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name)}
        plain = all(isinstance(v, ast.Constant) or (isinstance(v.value, ast.Name) and v.conversion == -1
                                                    and v.format_spec is None) for v in node.values)
        if plain and len(names) == 1 and (name := names.pop()) in bound:
            return ["".join(str(v.value) if isinstance(v, ast.Constant) else str(value) for v in node.values)
                    for value in bound[name]]
    return None


def registered(method: str) -> set[str]:
    """The options (`addoption`) or ini keys (`addini`) the plugin registers, from every module of pytest_physlaw."""
    found: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound = loop_values(tree)
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            if not (isinstance(call.func, ast.Attribute) and call.func.attr == method and call.args):
                continue
            args = call.args if method == "addoption" else call.args[:1]
            for arg in args:
                values = string_values(arg, bound.get(id(arg), {}))
                assert values is not None, (f"{path.relative_to(ROOT)}:{call.lineno}: {method}({ast.unparse(arg)}) is "
                                            "no name this test can read; teach string_values() its form")
                found.update(v for v in values if method == "addini" or v.startswith("--"))
    assert found, f"no {method}( call found under {PACKAGE.relative_to(ROOT)}/"
    return found


def subcommands() -> set[str]:
    """The `pytest-physlaw` subcommands: the `sub.add_parser("NAME")` calls of cli.py and of the modules
    whose `add_parser(sub)` cli.py calls."""
    cli = ast.parse((PACKAGE / "cli.py").read_text(encoding="utf-8"))
    trees = [cli]
    for call in (n for n in ast.walk(cli) if isinstance(n, ast.Call)):
        f = call.func
        if isinstance(f, ast.Attribute) and f.attr == "add_parser" and isinstance(f.value, ast.Name) \
                and (PACKAGE / f"{f.value.id}.py").exists():
            trees.append(ast.parse((PACKAGE / f"{f.value.id}.py").read_text(encoding="utf-8")))
    found = {call.args[0].value for tree in trees for call in ast.walk(tree)
             if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "add_parser"
             and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)}
    assert found, "pytest_physlaw/cli.py defines no subcommand this test can read"
    return found


def pack_laws() -> dict[str, str]:
    """The model pack's law ids (`@pytest.mark.law("model-...")` in pytest_physlaw/pack/, its rooms' packages
    included, the routes' apart: `route_laws`), each with its test's docstring's first line."""
    found = {}
    pack = PACKAGE / "pack"
    rooms = [pack, *(d for d in sorted(pack.iterdir()) if (d / "__init__.py").is_file() and d.name != "routes")]
    for path, tree in (m for room in rooms for m in modules(room)):
        for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
            for d in fn.decorator_list:
                if isinstance(d, ast.Call) and ast.unparse(d.func) == "pytest.mark.law" and d.args \
                        and isinstance(d.args[0], ast.Constant) and str(d.args[0].value).startswith("model-"):
                    doc = (ast.get_docstring(fn) or "").strip()
                    found[d.args[0].value] = f"{path.relative_to(ROOT)}: {doc.splitlines()[0] if doc else fn.name}"
    assert len(found) >= 20, "the model pack's laws are missing from pytest_physlaw/pack/*.py"
    return found


def route_laws() -> set[str]:
    """The pack's route law ids (`@route_law("model-route-...")` in pytest_physlaw/pack/routes/*.py)."""
    found = {d.args[0].value for _, tree in modules(PACKAGE / "pack" / "routes") for fn in ast.walk(tree)
             if isinstance(fn, ast.FunctionDef) for d in fn.decorator_list
             if isinstance(d, ast.Call) and ast.unparse(d.func) == "route_law" and d.args
             and isinstance(d.args[0], ast.Constant)}
    assert found, "the route laws are missing from pytest_physlaw/pack/routes/*.py"
    return found


def options_table() -> list[str]:
    """The first cell of each row of docs/ci.md's options table ("Options")."""
    rows = [line for line in section("docs/ci.md", "Options").splitlines() if line.startswith("| ")]
    cells = [row.strip("| ").split(" | ")[0] for row in rows[2:]]  # past the header and its rule
    assert len(cells) >= 10, "docs/ci.md's options table ('Options') is missing"
    return cells


def ini_keys(cell: str) -> set[str]:
    """The ini keys a cell names; `_iterations` after `physlaw_route_solver` is `physlaw_route_iterations`."""
    keys: set[str] = set()
    prefix = None
    for token in re.findall(r"`([\w]+)`", cell):
        if token.startswith("physlaw_"):
            keys.add(token)
            prefix = token.rsplit("_", 1)[0]
        elif token.startswith("_") and prefix:
            keys.add(prefix + token)
    return keys


# -- the tests ------------------------------------------------------------------------------------------------------


def test_the_readme_starts_with_the_title_and_the_two_commands():
    text = read("README.md")
    assert text.startswith("# pytest-physlaw\n"), "README.md must start with its title '# pytest-physlaw'"
    first = FENCE.search(text)
    assert first and first.group(1) == INSTALL, \
        f"README.md's first code block must be the two commands, verbatim:\n{INSTALL}"


def test_the_readme_links_each_readers_page():
    targets = {target.split("#", 1)[0] for target in links("README.md")}
    missing = [page for page in READERS if page not in targets]
    assert not missing, f"README.md does not link the reader page(s) {missing}"


@pytest.mark.parametrize("page", pages())
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(page):
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        where = (ROOT / page).parent / path if path else ROOT / page
        resolved = where.resolve()
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(f"{target} (no file {resolved})")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target} (no heading with anchor #{anchor} in {resolved.relative_to(ROOT)})")
    assert not broken, f"{page}: broken relative links:\n  " + "\n  ".join(broken)


def test_every_option_of_the_ci_options_table_is_registered_and_every_registered_one_is_there():
    plugin = registered("addoption")
    named = {opt for cell in options_table() for opt in re.findall(r"(--[a-z][\w-]*)", cell)}
    for option, module in FOREIGN_OPTIONS.items():
        if option in named:
            spec = importlib.util.find_spec(module)
            assert spec and spec.origin and f'"{option}"' in Path(spec.origin).read_text(encoding="utf-8"), \
                f"docs/ci.md's options table names {option}, which {module} no longer registers"
    unknown = sorted(named - plugin - set(FOREIGN_OPTIONS))
    assert not unknown, f"docs/ci.md's options table names options the plugin does not register: {unknown}"
    absent = sorted(plugin - named)
    assert not absent, f"options the plugin registers are missing from docs/ci.md's options table: {absent}"


def test_every_ini_key_of_the_ci_options_table_is_registered_and_every_registered_one_is_there():
    plugin = registered("addini")
    named = {key for cell in options_table() for key in ini_keys(cell)}
    unknown = sorted(named - plugin)
    assert not unknown, f"docs/ci.md's options table names ini keys the plugin does not register: {unknown}"
    absent = sorted(plugin - named)
    assert not absent, f"ini keys the plugin registers are missing from docs/ci.md's options table: {absent}"


def test_the_plugins_the_ci_options_table_turns_off_are_the_distributions():
    entry_points = tomllib.loads(read("pyproject.toml"))["project"]["entry-points"]["pytest11"]
    for cell in options_table():
        for name in re.findall(r"-p no:([\w.-]+)", cell):
            assert name in entry_points, \
                f"docs/ci.md's options table: -p no:{name}, but the pytest11 entry points are {sorted(entry_points)}"


def test_every_plugin_option_the_pages_name_is_registered():
    plugin = registered("addoption")
    for page in pages():
        named = set(re.findall(r"(?<![\w-])(--(?:law|physlaw)-[a-z][\w-]*)", read(page)))
        unknown = sorted(named - plugin)
        assert not unknown, f"{page} names options the plugin does not register: {unknown}"


def test_every_subcommand_the_pages_show_is_the_clis_and_each_is_shown():
    defined = subcommands()
    shown: set[str] = set()
    for page in pages():
        here = {sub for snippet in code(read(page)) for sub in SUBCOMMAND.findall(snippet)}
        unknown = sorted(here - defined)
        assert not unknown, \
            f"{page} shows `pytest-physlaw` subcommands the CLI does not define: {unknown} (it defines {sorted(defined)})"
        shown |= here
    absent = sorted(defined - shown)
    assert not absent, f"`pytest-physlaw` subcommands no page shows: {absent}"


def test_every_law_of_the_model_pack_has_its_row_on_the_model_authors_page():
    text = read("docs/checking-a-model.md")
    missing = {law: where for law, where in pack_laws().items() if f"`{law}`" not in text}
    assert not missing, "laws of the model pack missing from docs/checking-a-model.md:\n  " + "\n  ".join(
        f"{law} ({where})" for law, where in sorted(missing.items()))


def test_every_route_law_has_its_row_on_the_routes_page():
    text = read("docs/routes.md")
    missing = sorted(law for law in route_laws() if f"`{law}`" not in text)
    assert not missing, f"route laws missing from docs/routes.md: {missing}"


@pytest.mark.parametrize("page", ["docs/checking-a-model.md", "docs/routes.md"])
def test_every_model_law_a_page_names_is_one(page):
    known = set(pack_laws()) | route_laws()
    spans = CODE_SPAN.findall(FENCE.sub("", read(page)))
    named = {span for span in spans if re.fullmatch(r"model-[a-z0-9-]+", span)}
    unknown = sorted(named - known)
    assert not unknown, f"{page} names laws the pack does not have: {unknown}"
