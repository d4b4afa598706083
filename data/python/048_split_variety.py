# difficulty: Medium
# topic: prefix-sums-hashing
def split_variety(codes: List[int]) -> List[int]:
    buckets = [c % 7 for c in codes]
    n = len(buckets)
    right_kinds = [0] * (n + 1)
    seen = set()
    for i in range(n - 1, -1, -1):
        seen.add(buckets[i])
        right_kinds[i] = len(seen)
    seen.clear()
    out = []
    for i in range(n):
        seen.add(buckets[i])
        out.append(len(seen) - right_kinds[i + 1])
    return out
