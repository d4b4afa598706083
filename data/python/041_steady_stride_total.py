# difficulty: Hard
# topic: dynamic-programming
def steady_stride_total(seq: List[int]) -> int:
    vals = [x % 10 for x in seq]
    chains = []
    best_len, best_step, best_end = 1, 0, 0
    for i in range(len(vals)):
        here = {}
        for j in range(i):
            step = vals[i] - vals[j]
            length = chains[j].get(step, 1) + 1
            if length > here.get(step, 0):
                here[step] = length
            if length > best_len or (length == best_len and step > best_step):
                best_len, best_step, best_end = length, step, i
        chains.append(here)
    first = vals[best_end] - best_step * (best_len - 1)
    return best_len * first + best_step * best_len * (best_len - 1) // 2
