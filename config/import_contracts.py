"""Two contract types that import-linter does not ship, named in pyproject.toml's [tool.importlinter] and
checked by `lint-imports` (`make lint`). grimp reads every import statement, function-level ones too.
Never imported by the site."""

import sys

from importlinter import Contract, ContractCheck, fields, output


class AcyclicContract(Contract):
    """No module of the root packages reaches itself again through its imports. import-linter's own
    acyclic_siblings compares one package's children at a time, so it misses a cycle that crosses root
    packages or runs through a package's __init__."""

    def check(self, graph, verbose: bool) -> ContractCheck:
        roots = set(self.session_options["root_packages"])
        left = {m for m in graph.modules if m.partition(".")[0] in roots}
        cycles = set()
        while left:
            module = min(left)
            # Its strongly connected component: what it imports, and what imports it, at any distance.
            group = graph.find_upstream_modules(module) & graph.find_downstream_modules(module) | {module}
            left -= group
            if len(group) > 1:
                cycles.update(_shortest_cycle(graph, start, group) for start in group)
        return ContractCheck(kept=not cycles, metadata={"cycles": sorted(cycles)})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for cycle in check.metadata["cycles"]:
            output.print_error(" -> ".join(cycle), bold=False)


def _shortest_cycle(graph, start: str, group: set[str]) -> tuple[str, ...]:
    """The shortest cycle through `start` (a module of `group`, a strongly connected component), as
    `importer:line` steps, begun at its smallest module so that each cycle is listed once."""
    chains = [graph.find_shortest_chain(importer=step, imported=start)
              for step in graph.find_modules_directly_imported_by(start) & group]
    ring = (start, *min(chains, key=lambda chain: (len(chain), chain))[:-1])
    first = ring.index(min(ring))
    ring = ring[first:] + ring[:first]
    steps = zip(ring, ring[1:] + ring[:1], strict=True)
    return (*(f"{a}:{graph.get_import_details(importer=a, imported=b)[0]['line_number']}" for a, b in steps),
            ring[0])


class StandardLibraryOnlyContract(Contract):
    """`package` imports nothing but itself and the standard library
    (needs include_external_packages, without which grimp leaves external imports out)."""

    package = fields.ModuleField()

    def check(self, graph, verbose: bool) -> ContractCheck:
        package = self.package.name
        inside = graph.find_descendants(package) | {package}
        found = sorted(
            f"{importer}:{detail['line_number']} imports {imported}"
            for importer in inside
            for imported in graph.find_modules_directly_imported_by(importer) - inside
            if imported.partition(".")[0] not in sys.stdlib_module_names
            for detail in graph.get_import_details(importer=importer, imported=imported))
        return ContractCheck(kept=not found, metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for line in check.metadata["found"]:
            output.print_error(line, bold=False)
