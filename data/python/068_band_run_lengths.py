# difficulty: Easy
# topic: simulation
def band_run_lengths(signal: List[int]) -> List[int]:
    out = []
    for s in signal:
        band = s // 25
        if out and out[-2] == band:
            out[-1] += 1
        else:
            out.append(band)
            out.append(1)
    return out
