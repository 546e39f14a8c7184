"""The house's rules, read from the code's own import statements (top-level, in-function and relative alike): no import
circle; the shared stages never import a method; the methods are siblings (none imports another); nothing imports the
CLI. (A registry that loads its plugins by name on first use, as `augsbert.data` does its loaders, is not an import.)"""
import ast
from pathlib import Path
import augsbert
from augsbert.cache import module_file

def module_imports(name:str)->set:
    "The package modules `name`'s import statements name (relative ones resolved; `from x import y` counts y if a module)."
    src, out = module_file(name), set()
    pkg = name if src.name == '__init__.py' else name.rsplit('.', 1)[0]
    for node in ast.walk(ast.parse(src.read_text(encoding='utf-8'))):
        if isinstance(node, ast.Import): found = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level: base = '.'.join(pkg.split('.')[:len(pkg.split('.')) - node.level + 1] + ([base] if base else []))
            found = [base] + [f'{base}.{a.name}' for a in node.names]
        else: continue
        out.update(m for m in found if m.split('.')[0] == 'augsbert' and module_file(m))
    return out

PKG = Path(augsbert.__file__).parent

def _modules():
    for p in sorted(PKG.rglob('*.py')):
        if p.name == '_modidx.py': continue
        parts = p.relative_to(PKG.parent).with_suffix('').parts
        yield '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)

GRAPH = {m: {i for i in module_imports(m) if i != m and not m.startswith(i + '.')} for m in _modules()}

def _family(m):
    "The method family a module belongs to ('augsbert.methods.arguebert' for both ArgueBERT modules), else None."
    parts = m.split('.')
    return '.'.join(parts[:3]) if len(parts) > 2 and parts[1] == 'methods' else None

def test_no_circle():
    state = {}
    def visit(m, path):
        if state.get(m) == 'done': return
        assert state.get(m) != 'open', f"import circle: {' -> '.join(path + [m])}"
        state[m] = 'open'
        for n in sorted(GRAPH.get(m, ())): visit(n, path + [m])
        state[m] = 'done'
    for m in GRAPH: visit(m, [])

def test_shared_stages_never_import_a_method():
    for m, deps in GRAPH.items():
        if _family(m) is None and m not in ('augsbert.cli', 'augsbert.methods'):
            assert not [d for d in deps if _family(d)], f"{m} (a shared stage) imports the method(s) {[d for d in deps if _family(d)]}"

def test_methods_are_siblings():
    for m, deps in GRAPH.items():
        if _family(m):
            other = sorted(d for d in deps if _family(d) and _family(d) != _family(m))
            assert not other, f"{m} imports its sibling(s) {other}: share code through a stage below instead"

def test_nothing_imports_the_cli():
    assert not [m for m, deps in GRAPH.items() if 'augsbert.cli' in deps]

def test_the_graph_is_read():
    "The rules above hold of a real graph: the in-domain method reaches the teachers, the teachers the protocol."
    assert {'augsbert.teachers', 'augsbert.protocol', 'augsbert.students'} <= GRAPH['augsbert.methods.in_domain']
    assert 'augsbert.protocol' in GRAPH['augsbert.teachers'] and len(GRAPH) >= 30
