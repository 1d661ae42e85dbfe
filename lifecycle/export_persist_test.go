package lifecycle

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// LimitPasses bounds c's Steps to n passes from now on (0: as
// configured), so that a test's Step may stop before a given pass.
func LimitPasses(c *Cluster, n int) {
	if n <= 0 {
		n = c.step.opt.MaxPasses
	}
	c.step.settler.MaxPasses = n
}

// Build refreshes c's snapshot at now over the whole queue, as Forecast
// and Explain do.
func Build(c *Cluster, now int64) { c.build(now, 0) }

// Fingerprint writes out all of c's state, its unexported fields too,
// but for what is only valid during a Step or a pass (fingerprintSkips),
// so that two Clusters' states can be compared whole; named names each
// field, for a reader (slower).
func Fingerprint(c *Cluster, named bool) string {
	f := fingerprinter{seen: map[uintptr]bool{}, named: named}
	f.write(reflect.ValueOf(c).Elem())
	return f.b.String()
}

type fingerprinter struct {
	b     strings.Builder
	seen  map[uintptr]bool
	named bool
}

// fingerprintSkips are the fields, by type and name, that Fingerprint
// leaves out: the core's scratch (it keeps nothing between passes that
// changes a plan), and the stepper's hold on the driver and instant
// during a Step and its scratch for the pass (the FIFO window's cut and
// blocked flags, set anew by every pass).
var fingerprintSkips = map[string]bool{
	"Cluster.scheduler": true,
	"stepper.c":         true, "stepper.ap": true, "stepper.persist": true, "stepper.now": true,
	"stepper.settler": true, "stepper.carry": true, "stepper.applied": true, "stepper.launching": true,
	"stepper.cut": true, "stepper.lastBlocked": true,
}

func (f *fingerprinter) write(v reflect.Value) {
	b := &f.b
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if f.seen[v.Pointer()] {
			b.WriteString("<seen>")
			return
		}
		f.seen[v.Pointer()] = true
		b.WriteByte('&')
		f.write(v.Elem())
	case reflect.Struct:
		// Fields go by position unless named (both sides are of one
		// type); only the Cluster's and the stepper's have any to skip.
		t := v.Type()
		skips := t == reflect.TypeFor[Cluster]() || t == reflect.TypeFor[stepper]()
		b.WriteByte('{')
		for i := range v.NumField() {
			if skips && fingerprintSkips[t.Name()+"."+t.Field(i).Name] {
				continue
			}
			if f.named {
				b.WriteString(t.Field(i).Name + ":")
			}
			f.write(v.Field(i))
			b.WriteByte(' ')
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := range v.Len() {
			f.write(v.Index(i))
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case reflect.Map:
		var kvs []string
		for it := v.MapRange(); it.Next(); {
			kv := fingerprinter{seen: f.seen, named: f.named}
			kv.write(it.Key())
			kv.b.WriteByte(':')
			kv.write(it.Value())
			kvs = append(kvs, kv.b.String())
		}
		slices.Sort(kvs)
		b.WriteString("map[" + strings.Join(kvs, ",") + "]")
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		f.write(v.Elem())
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		b.WriteString(strconv.FormatBool(!v.IsNil()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	default:
		fmt.Fprintf(b, "<%s>", v.Kind())
	}
}
