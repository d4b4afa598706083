# difficulty: Medium
# topic: dynamic-programming
def distinct_bundle_totals(goods: List[int]) -> int:
    reach = {0}
    for g in goods:
        w = abs(g) % 40
        grown = set()
        for r in reach:
            grown.add(r)
            grown.add(r + w)
        reach = grown
    return len(reach)
