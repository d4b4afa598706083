# difficulty: Easy
# topic: two-pointers-sorting
def fit_keys_to_locks(keys: List[int], locks: List[int]) -> int:
    keys.sort()
    locks.sort()
    i = j = 0
    matched = 0
    while i < len(keys) and j < len(locks):
        if keys[i] <= locks[j]:
            matched += 1 + (locks[j] - keys[i]) % 3
            i += 1
        j += 1
    return matched
