// Command train is a tiny stand-in for a training script that follows
// Allot's preemption protocol. It counts steps, saves its step counter to
// ALLOT_CHECKPOINT_DIR when asked to checkpoint, and resumes from that
// checkpoint when started again.
//
//	train [-steps 100] [-step-time 50ms] [-checkpoint-every 0]
//
// A checkpoint request is either signal SIGTERM (or SIGINT) or the file
// named by ALLOT_PREEMPT_FILE appearing; train checks for both between
// steps. On a request it writes the checkpoint, prints
// "checkpoint step=N reason=...", and exits 0. After the last step it
// writes the checkpoint, prints "done step=N" and exits 0. It prints
// "step N" after each step, so the log shows exactly which steps ran.
//
// Each step is one step of gradient descent on a small fixed
// least-squares problem (objective.go) with the trial's hyperparameters lr
// and momentum; every -validate-every steps, and at the end, it appends
// the validation loss to ALLOT_METRICS_FILE as {"step": N, "metrics":
// {"loss": L, "train_loss": T}}. ALLOT_TRIAL_MAX_STEPS, which adaptive
// searchers set, overrides -steps.
//
// The checkpoint is ALLOT_CHECKPOINT_DIR/train-state.json, {"step": N, ...},
// written to a temporary file and renamed, so that a kill mid-write leaves
// the previous checkpoint whole. Without ALLOT_CHECKPOINT_DIR it uses
// ./checkpoint.
package main
