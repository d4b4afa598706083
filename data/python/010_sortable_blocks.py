# difficulty: Hard
# topic: monotonic-stack
def sortable_blocks(items: List[int]) -> int:
    peaks = []
    for x in items:
        if peaks and peaks[-1] > x:
            top = peaks.pop()
            while peaks and peaks[-1] > x:
                peaks.pop()
            peaks.append(top)
        else:
            peaks.append(x)
    return sum(peaks) + len(peaks)
