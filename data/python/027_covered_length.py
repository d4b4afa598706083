# difficulty: Medium
# topic: two-pointers-sorting
def covered_length(marks: List[int]) -> int:
    spans = []
    for i in range(0, len(marks) - 1, 2):
        a, b = marks[i], marks[i + 1]
        spans.append((min(a, b), max(a, b)))
    spans.sort()
    total = 0
    cur_start, cur_end = spans[0]
    for start, end in spans[1:]:
        if start <= cur_end:
            cur_end = max(cur_end, end)
        else:
            total += cur_end - cur_start
            cur_start, cur_end = start, end
    total += cur_end - cur_start
    return total
