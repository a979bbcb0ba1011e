"""Every import statement of a Python file, parsed the one way tests/flow/test_layers.py
(the layers' direction) and test_import_cycles.py (the cycles) both read them."""
import ast


def statements(root, path):
    """[(line, module, names)] of every import in path at any depth (a function's local one
    too): `import a` gives (line, "a", []), `from m import x, y` (line, m, ["x", "y"]),
    a relative m resolved against the package of path (relative to root)."""
    rel = path.relative_to(root)
    package = list(rel.parent.parts)
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(rel))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            out.append((node.lineno, mod, [a.name for a in node.names]))
    return out
