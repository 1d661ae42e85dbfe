package metrics

// MaxBuckets bounds the length of a time series. A run starts with
// one-minute buckets and doubles their width, merging neighbours, each
// time it outgrows them, so any run ends with between MaxBuckets/2 and
// MaxBuckets buckets (fewer only when it is shorter than that many
// minutes) and memory never grows with the run's length.
const MaxBuckets = 240

const firstStep = 60

// Series is a run's state over time in equal steps from Start: the mean
// of each quantity over each step. The last step may be partial; its
// means cover only the part before the end of the run.
type Series struct {
	Start int64 `json:"start"`
	Step  int64 `json:"step"`
	// Utilization is the mean fraction of the cluster's slots held.
	Utilization []float64 `json:"utilization"`
	// Queue is the mean number of jobs with tasks waiting to start.
	Queue []float64 `json:"queue"`
	// Projects gives, per project, the mean slots held and the mean slots
	// it was entitled to (its max-min fair share).
	Projects []ProjectSeries `json:"projects"`
	// WaitQuantiles are the nearest-rank percentiles 0, 0.5, 1 … 100 of
	// the wait of every job that started: the CDF of wait.
	WaitQuantiles []float64 `json:"wait_quantiles"`
}

// ProjectSeries is one project's share over time.
type ProjectSeries struct {
	Name     string    `json:"name"`
	Slots    []float64 `json:"slots"`
	Entitled []float64 `json:"entitled"`
}

// buckets accumulates integrals over fixed-width time buckets.
type buckets struct {
	start, step int64
	used        int // buckets [0, used) have been touched
	busy, queue []float64
}

func (b *buckets) init(start int64) {
	b.start, b.step = start, firstStep
	b.busy = make([]float64, MaxBuckets)
	b.queue = make([]float64, MaxBuckets)
}

// fit widens the buckets until time t lies within them and returns how
// many times it doubled them; the caller merges its own arrays as often.
func (b *buckets) fit(t int64) int {
	doublings := 0
	for t > b.start+int64(MaxBuckets)*b.step {
		b.step *= 2
		merge(b.busy)
		merge(b.queue)
		b.used = (b.used + 1) / 2
		doublings++
	}
	return doublings
}

// merge halves the resolution of a: bucket i becomes buckets 2i and 2i+1.
func merge(a []float64) {
	half := len(a) / 2
	for i := range half {
		a[i] = a[2*i] + a[2*i+1]
	}
	clear(a[half:])
}

// bucket returns the bucket holding time from and where that bucket's
// part of [from, to) ends. fit(to) must have been called. Callers loop
// over an interval with it rather than passing a callback, which would
// allocate.
func (b *buckets) bucket(from, to int64) (int, int64) {
	i := int((from - b.start) / b.step)
	b.used = max(b.used, i+1)
	return i, min(b.start+int64(i+1)*b.step, to)
}

// means divides each bucket's integral by its covered width (and by scale)
// up to time end.
func (b *buckets) means(a []float64, end int64, scale float64) []float64 {
	out := make([]float64, b.used)
	for i := range out {
		lo := b.start + int64(i)*b.step
		w := float64(min(lo+b.step, end) - lo)
		if w > 0 && scale > 0 {
			out[i] = Round(a[i]/(w*scale), 4)
		}
	}
	return out
}
