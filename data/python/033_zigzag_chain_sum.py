# difficulty: Medium
# topic: dynamic-programming
def zigzag_chain_sum(vals: List[int]) -> int:
    n = len(vals)
    up = vals[:]
    down = vals[:]
    for i in range(n):
        for j in range(i):
            if vals[j] < vals[i]:
                up[i] = max(up[i], down[j] + vals[i])
            elif vals[j] > vals[i]:
                down[i] = max(down[i], up[j] + vals[i])
    return max(max(up), max(down))
