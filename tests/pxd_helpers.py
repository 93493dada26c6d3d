"""Where a compiled module's ``.pxd`` and its ``.py`` source disagree.

Compiled in pure-Python mode, a module's ``.py`` is the source and the ``.pxd`` beside it
adds C types (docs/design.md); nothing but this check keeps the two saying the same thing.
``disagreements`` reads both (the ``.pxd`` line by line, the ``.py`` with ``ast``) and
lists, one line each, every field or function one declares and the other lacks, names
differently or types differently.  A C type is spelt in the ``.py`` as Cython's
pure-Python name (``cython.ulonglong`` for ``unsigned long long``; ``bool`` for ``bint``);
an object type by its name.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

# Cython's pure-Python names of the C types the .pxd files use.
C_NAMES = {
    "int": "int",
    "long": "long",
    "longlong": "long long",
    "ulonglong": "unsigned long long",
    "Py_ssize_t": "Py_ssize_t",
    "uint": "unsigned int",
    "uchar": "unsigned char",
    "bint": "bint",
    "void": "void",
}
C_TYPES = frozenset(C_NAMES.values()) | {t + "*" for t in C_NAMES.values()}
BUILTINS = frozenset({"list", "dict", "set", "frozenset", "tuple", "str", "bytes", "bytearray"})
PXD_NAMES = {"cpython.array.array": "array"}  # a .pxd's spelling of a .py's type
PY_INT = "Python int"  # a plain ``int``: an object, of any size
DECORATED = {"cfunc": "cdef", "ccall": "cpdef"}


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: bool


@dataclass(frozen=True)
class Function:
    kind: str  # "cdef" | "cpdef"
    returns: str
    params: tuple[Param, ...]


@dataclass
class Klass:
    fields: dict[str, str] = field(default_factory=dict)
    methods: dict[str, Function] = field(default_factory=dict)
    base: str | None = None  # the extension type it derives from, by name


@dataclass
class Declarations:
    classes: dict[str, Klass] = field(default_factory=dict)
    functions: dict[str, Function] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)  # module-level C variables


_FUNCTION = re.compile(r"(cdef|cpdef)\s+(?:inline\s+)?(.*?)\s*\b(\w+)\s*\((.*)\)")
_FIELD = re.compile(r"cdef\s+(?:(?:public|readonly)\s+)?(.+?)\s*\b(\w+)")
_CLASS = re.compile(r"cdef\s+class\s+(\w+)\s*(?:\(\s*(\w+)\s*\))?\s*:")


def _ctype(text: str) -> str:
    text = " ".join(text.replace("*", " * ").split()).replace(" *", "*")
    return PXD_NAMES.get(text, text) or "object"


def _pxd_function(match: re.Match[str], method: bool) -> Function:
    kind, returns, _, text = match.groups()
    params = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        default = part.endswith("=*")
        words = part.removesuffix("=*").split()
        params.append(Param(words[-1], _ctype(" ".join(words[:-1])), default))
    if method:
        params = params[1:]  # self
    return Function(kind, _ctype(returns), tuple(params))


def read_pxd(text: str) -> Declarations:
    """The classes (fields and methods) and functions a .pxd declares."""
    found = Declarations()
    klass: Klass | None = None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        code = line.strip()
        if not code or code.startswith(("@", "cimport", "from ")):
            continue
        indented = line[0].isspace()
        if not indented:
            klass = None
        if m := _CLASS.match(code):
            klass = found.classes.setdefault(m.group(1), Klass(base=m.group(2)))
        elif m := _FUNCTION.match(code):
            name = m.group(3)
            if indented and klass is not None:
                klass.methods[name] = _pxd_function(m, method=True)
            else:
                found.functions[name] = _pxd_function(m, method=False)
        elif (m := _FIELD.fullmatch(code)) and indented and klass is not None:
            klass.fields[m.group(2)] = _ctype(m.group(1))
        elif (m := _FIELD.fullmatch(code)) and not indented:
            found.variables[m.group(2)] = _ctype(m.group(1))
        else:
            raise ValueError(f"a .pxd line this check does not read: {raw!r}")
    return found


class _Types:
    """A .py annotation as the type a .pxd would name, given the module's Literal aliases."""

    def __init__(self, tree: ast.Module) -> None:
        self.aliases: dict[str, ast.expr] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                target, value = node.target, node.value
            else:
                continue
            if isinstance(target, ast.Name) and _is_literal(value):
                self.aliases[target.id] = value

    def literal(self, node: ast.expr) -> set[str]:
        """The types of a Literal's values, through aliases."""
        if isinstance(node, ast.Name) and node.id in self.aliases:
            return self.literal(self.aliases[node.id])
        if isinstance(node, ast.Subscript):
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return set().union(*(self.literal(i) for i in items))
        if isinstance(node, ast.Constant):
            return {type(node.value).__name__}
        return {"object"}

    def of(self, node: ast.expr | None) -> str:
        """``int`` for ``cython.int``, ``list`` for ``list[int]``, ``str`` for a Literal
        of strings, ``Trick`` for ``Trick | None``; ``bool`` and ``int`` as they are."""
        if node is None:
            return "object"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            sides = [s for s in (node.left, node.right) if not _is_none(s)]
            return self.of(sides[0]) if len(sides) == 1 else "object"
        if _is_none(node):
            return "None"
        if isinstance(node, ast.Attribute) and _is_cython(node.value):
            if node.attr.startswith("p_") and node.attr[2:] in C_NAMES:
                return C_NAMES[node.attr[2:]] + "*"  # cython.p_longlong
            return C_NAMES.get(node.attr, f"cython.{node.attr}")
        if isinstance(node, ast.Call) and _is_cython(node.func) and len(node.args) == 1:
            return self.of(node.args[0]) + "*"  # cython.pointer(...)
        if (isinstance(node, ast.Name) and node.id in self.aliases) or _is_literal(node):
            kinds = self.literal(node)  # a Literal of strings is a str, of small ints a C int
            return kinds.pop() if len(kinds) == 1 else "object"
        if isinstance(node, ast.Name) and node.id == "int":
            return PY_INT
        if isinstance(node, ast.Subscript):
            return self.of(node.value)
        if isinstance(node, ast.Attribute):
            return node.attr
        if isinstance(node, ast.Name):
            return node.id
        return ast.unparse(node)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_cython(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "cython") or (
        isinstance(node, ast.Attribute) and node.attr == "pointer" and _is_cython(node.value)
    )


def _is_literal(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Literal"
    )


def agrees(pxd: str, py: str) -> bool:
    """Whether a .pxd's type and a .py annotation (as ``_Types.of`` reads it) say the same.

    An ``object`` in the .pxd takes any annotation but a C type's or ``bool``: the .pxd may
    leave an object untyped, and a plain ``int`` is a Python integer, of any size.  ``bint``
    takes ``bool``; a typed memoryview (``T[::1]``) takes the ``array`` it views."""
    if pxd.endswith("[::1]"):
        return py == "array"
    if pxd == "object":
        return py not in C_TYPES and py != "bool"
    if pxd == "bint":
        return py in ("bint", "bool")
    if pxd == "void":
        return py == "None"
    return pxd == py


def _decorators(node: ast.FunctionDef | ast.ClassDef) -> set[str]:
    names = set()
    for d in node.decorator_list:
        d = d.func if isinstance(d, ast.Call) else d
        if isinstance(d, ast.Attribute):
            names.add(d.attr)
    return names


def _py_function(node: ast.FunctionDef, types: _Types, method: bool) -> Function:
    args = node.args.posonlyargs + node.args.args
    first_default = len(args) - len(node.args.defaults)
    params = tuple(
        Param(a.arg, types.of(a.annotation), i >= first_default) for i, a in enumerate(args)
    )
    kind = next((DECORATED[d] for d in _decorators(node) if d in DECORATED), "")
    return Function(kind, types.of(node.returns), params[1:] if method else params)


def _py_class(node: ast.ClassDef, types: _Types) -> tuple[Klass, set[str]]:
    """The class's fields (class-level annotations, then ``self.x`` assignments, the first
    annotated one giving the type) and methods; and the fields annotated nowhere."""
    klass = Klass()
    unannotated: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            klass.fields[item.target.id] = types.of(item.annotation)
        elif isinstance(item, ast.FunctionDef):
            if not {"property", "staticmethod", "classmethod"} & _decorators(item):
                klass.methods[item.name] = _py_function(item, types, method=True)
            for sub in ast.walk(item):
                targets: list[ast.expr] = []
                if isinstance(sub, ast.Assign):
                    targets = sub.targets
                elif isinstance(sub, ast.AnnAssign | ast.AugAssign):
                    targets = [sub.target]
                for t in targets:
                    if not (
                        isinstance(t, ast.Attribute)
                        and isinstance(t.value, ast.Name)
                        and t.value.id == "self"
                    ):
                        continue
                    if isinstance(sub, ast.AnnAssign) and t.attr not in klass.fields:
                        klass.fields[t.attr] = types.of(sub.annotation)
                        unannotated.discard(t.attr)
                    elif t.attr not in klass.fields:
                        unannotated.add(t.attr)
    return klass, unannotated


def _inherited(klass: Klass, known: dict[str, Klass]) -> set[str]:
    """The fields ``klass`` inherits: its base's, and theirs, as the .pxd files declare."""
    fields: set[str] = set()
    base = known.get(klass.base) if klass.base else None
    while base is not None:
        fields |= set(base.fields)
        base = known.get(base.base) if base.base else None
    return fields


def disagreements(pxd_text: str, py_text: str, others: dict[str, Klass] | None = None) -> list[str]:
    """Every way the .pxd and the .py disagree, one line each; empty when they agree.
    ``others``: the classes other .pxd files declare, by name, where a class's base is
    declared (a field it assigns may be its base's)."""
    pxd = read_pxd(pxd_text)
    known = {**(others or {}), **pxd.classes}
    tree = ast.parse(py_text)
    types = _Types(tree)
    problems: list[str] = []
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name, declared in pxd.classes.items():
        if name not in classes:
            problems.append(f"class {name}: in the .pxd, not in the .py")
            continue
        source, unannotated = _py_class(classes[name], types)
        for f, ctype in declared.fields.items():
            if f in unannotated:
                problems.append(f"{name}.{f}: {ctype} in the .pxd, annotated nowhere in the .py")
            elif f not in source.fields:
                problems.append(f"{name}.{f}: in the .pxd, not in the .py")
            elif not agrees(ctype, source.fields[f]):
                problems.append(f"{name}.{f}: {ctype} in the .pxd, {source.fields[f]} in the .py")
        inherited = _inherited(declared, known)
        for f in sorted(
            set(source.fields) - set(declared.fields) - inherited
            | unannotated - set(declared.fields) - inherited
        ):
            problems.append(f"{name}.{f}: in the .py, not in the .pxd")
        problems += _compare(name + ".", declared.methods, source.methods)
    assigned = {
        t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
        if isinstance(t, ast.Name)
    }  # fmt: skip
    for name, ctype in pxd.variables.items():
        if name not in assigned:
            problems.append(f"{name}: a {ctype} in the .pxd, not assigned at the .py's top")
    py_functions = {n: _py_function(f, types, method=False) for n, f in functions.items()}
    problems += _compare("", pxd.functions, py_functions)
    for name, node in classes.items():
        if name not in pxd.classes and "cclass" not in _decorators(node):
            for m in _py_class(node, types)[0].methods.values():
                if m.kind:
                    problems.append(f"{name}: C methods in a class the .pxd does not declare")
                    break
    return problems


def _compare(prefix: str, declared: dict[str, Function], source: dict[str, Function]) -> list[str]:
    problems = []
    for name, c in declared.items():
        where = f"{prefix}{name}"
        py = source.get(name)
        if py is None:
            problems.append(f"{where}: {c.kind} in the .pxd, not in the .py")
            continue
        if py.kind and py.kind != c.kind:
            problems.append(f"{where}: {c.kind} in the .pxd, {py.kind} in the .py")
        if [p.name for p in c.params] != [p.name for p in py.params]:
            names = ", ".join(p.name for p in c.params), ", ".join(p.name for p in py.params)
            problems.append(
                f"{where}: parameters ({names[0]}) in the .pxd, ({names[1]}) in the .py"
            )
            continue
        for a, b in zip(c.params, py.params, strict=True):
            if not agrees(a.type, b.type):
                problems.append(f"{where}({a.name}): {a.type} in the .pxd, {b.type} in the .py")
            if a.default != b.default:
                problems.append(f"{where}({a.name}): a default in one only")
        if not agrees(c.returns, py.returns) and not (
            c.returns == "object" and py.returns == "None"
        ):
            problems.append(f"{where}: returns {c.returns} in the .pxd, {py.returns} in the .py")
    for name, py in source.items():
        if py.kind and name not in declared and prefix:
            problems.append(f"{prefix}{name}: {py.kind} in the .py, not in the .pxd")
    return problems


def pairs(root: Path) -> list[tuple[Path, Path]]:
    """Every .pxd under ``root`` with the .py it types."""
    return [(pxd, pxd.with_suffix(".py")) for pxd in sorted(root.rglob("*.pxd"))]
