// Package trace reads workload traces, one job at a time, for the
// simulator to replay.
//
// Two formats are supported: the Standard Workload Format (SWF) of the
// Parallel Workloads Archive, and a small CSV format for GPU clusters,
// close to the public Helios and Philly logs. Either may be gzipped; gzip
// is recognised by its magic bytes (1f 8b), not by the file name. Open
// picks the format from the name; NewSWF and NewCSV take any io.Reader.
//
// # Invariants
//
// Every Reader guarantees, for the jobs returned by Next:
//
//   - Jobs come in file order, and Submit never decreases. A trace whose
//     records are not sorted by submit time is an error, not re-sorted:
//     sorting needs the whole trace in memory and would hide a broken file.
//   - Run > 0 and Slots > 0.
//   - Memory does not grow with the trace: a Reader holds one line, a fixed
//     set of counters and at most a few thousand interned user and project
//     names. Job IDs are not checked for uniqueness for the same reason.
//   - No record vanishes silently. A record that is well formed but cannot
//     be run is counted in Skipped under the first of these reasons that
//     applies: SkipNoSubmit, SkipNoSlots or SkipNoGPUs, SkipNoRun,
//     SkipZeroRun. Zero-second jobs are skipped, and counted apart from
//     unknown run times, because a job that occupies no time says nothing
//     about scheduling but would still count as a finished job in the
//     results; callers that care can see how many there were.
//   - A malformed record stops the reader with an *Error naming the file,
//     the line and the field or column, e.g.
//     `sp2.swf:40: field 4 (run time): expected an integer, got "abc"`.
//     Errors are sticky.
//
// # SWF
//
// A record is 18 whitespace-separated numbers; -1 means unknown. Lines
// starting with ';' are comments; those before the first record form the
// header ("; MaxProcs: 128"), from which Version, Computer, Installation,
// MaxJobs, MaxRecords, MaxNodes, MaxProcs, UnixStartTime, TimeZoneString
// and Note are kept. A Job is built from these fields:
//
//	ID        field 1, job number, as written
//	Submit    field 2, submit time, as written (seconds after UnixStartTime)
//	Run       field 4, run time
//	Slots     field 5, allocated processors; if <= 0, field 8, requested processors
//	TimeLimit field 9, requested time, or 0 if <= 0
//	User      field 12, user id, or "" if -1
//	Project   field 13, group id, or "" if -1
//
// The fields the reader uses must be integers; the others must be numbers
// (a fraction is allowed, as some archive traces store CPU time that way).
// Records with submit time -1 are skipped and take no part in the order
// check; all others, skipped or not, must be in non-decreasing submit order.
//
// # GPU job CSV
//
// The file is RFC 4180 CSV. The first row names the columns, in any order,
// with these exact lower-case names; an unknown or repeated name is an
// error, and every column but time_limit is required:
//
//	job_id      non-empty string, e.g. a scheduler job id
//	user        string, may be empty
//	project     string, may be empty: project, virtual cluster (vc) or account
//	submit      integer seconds, or a timestamp "2006-01-02 15:04:05" (read
//	            as UTC) or RFC 3339 ("2006-01-02T15:04:05+08:00"); one file
//	            must use one style
//	gpus        integer >= 0
//	nodes       integer >= 0, or empty when unknown (Job.Nodes = 0)
//	duration    integer seconds the job actually ran
//	time_limit  optional column; integer seconds requested; empty or <= 0
//	            means none
//
// Cells are trimmed of surrounding blanks. Job.Submit is the row's submit
// time minus the first row's, so the first row is at 0 whether or not it
// is runnable; Header().SubmitOrigin is that first value, and for
// timestamps Header().UnixStartTime too. Rows must be sorted by submit time.
// Rows with gpus == 0 are CPU-only jobs and are skipped (SkipNoGPUs): this
// package feeds a GPU scheduler, where such a job would take no resource
// at all. Rows with duration < 0 (unknown) or == 0 are skipped as in SWF.
// A bad cell is an error naming the line and column, e.g.
// `jobs.csv:7: column gpus: expected an integer, got "two"`.
//
// Example:
//
//	job_id,user,project,submit,gpus,nodes,duration,time_limit
//	6346,u1,vc7Bz,2020-04-01 00:00:07,8,1,3600,
//	6347,u2,vcEwI,2020-04-01 00:02:11,16,2,86,7200
//
// Timestamps carry no zone, so a log written in a local time that crosses
// a daylight-saving change gains or loses an hour there, and the repeated
// hour of autumn can put rows out of order. Convert such logs to RFC 3339
// with an offset, or to Unix seconds.
//
// # Converting Helios and Philly logs
//
// The Helios cluster_log.csv (S-Lab-System-Group/HeliosData) has the
// header job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,
// start_time,end_time,duration,queue, with submit_time as
// "2020-04-01 00:00:07" and duration in seconds. This one line looks the
// columns up by name, so an extra column such as jobname does no harm, and
// sorts the rows by submit time (timestamps sort as text):
//
//	awk -F, -v OFS=, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i; print "job_id,user,project,submit,gpus,nodes,duration"; next} {print $c["job_id"],$c["user"],$c["vc"],$c["submit_time"],$c["gpu_num"],$c["node_num"],$c["duration"]}' cluster_log.csv | { IFS= read -r h; echo "$h"; sort -s -t, -k4,4; } > helios.csv
//
// The Philly log (msr-fiddle/philly-traces) is JSON; the line below
// assumes it was first flattened to one CSV row per job as in the Helios
// artifact's philly_trace.csv, with columns named user, vc, gpu_num,
// submit_time ("2017-10-03 02:52:31") and duration (seconds), and
// optionally job_id (the row number stands in when it is absent). Philly
// times are US Pacific local time; see the daylight-saving note above.
//
//	awk -F, -v OFS=, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i; print "job_id,user,project,submit,gpus,nodes,duration"; next} {print ("job_id" in c ? $c["job_id"] : NR-1),$c["user"],$c["vc"],$c["submit_time"],$c["gpu_num"],"",$c["duration"]}' philly_trace.csv | { IFS= read -r h; echo "$h"; sort -s -t, -k4,4; } > philly.csv
//
// Both lines split on every comma, so they are only right while no cell is
// quoted with a comma inside; use a CSV-aware tool otherwise. CPU-only jobs
// (gpu_num 0) can stay in the output: the reader skips and counts them.
package trace
