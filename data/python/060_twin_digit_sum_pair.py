# difficulty: Medium
# topic: number-theory
def twin_digit_sum_pair(entries: List[int]) -> int:
    best_by_sum = {}
    answer = -999
    for e in entries:
        v = abs(e)
        s = 0
        while v:
            s += v % 10
            v //= 10
        if s in best_by_sum:
            answer = max(answer, best_by_sum[s] + e)
            best_by_sum[s] = max(best_by_sum[s], e)
        else:
            best_by_sum[s] = e
    return answer
