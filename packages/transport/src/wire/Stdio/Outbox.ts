/**
 * The writer's mailbox: any fiber offers whole frames; the one writer fiber takes everything queued as one chunk.
 *
 * It replaces a `Queue` + `Stream.fromQueue` on the hot path. The queue woke the writer through the runtime's
 * scheduler (a `setImmediate` turn per wake-up), so every request waited one event-loop turn before it was
 * written. Here the waiting writer is resumed from a microtask: frames offered in the same synchronous run (64
 * callers resumed by one stdout chunk) still leave in one write, without the extra event-loop turn.
 *
 * A batch does not wait for the whole run, though: once `EAGER_FRAMES` frames (or `EAGER_CHARS` characters) are
 * queued and the writer is idle, it is resumed at once, so the server starts on the first requests of a burst while
 * the client is still producing the rest (the two processes then work side by side on two cores instead of taking
 * turns). Measured at concurrency 64 in a same-run A/B (BENCHMARKS.md): 0.59× raw waiting for the whole run, 0.81×
 * with this; thresholds from 4 to 24 frames were inside the noise of each other, a write per frame was worse (0.49×).
 *
 * Within one run the threshold doubles after each such hand-over (8, then 16, 32…; back to 8 at the run's end): the
 * first requests of a burst still leave at once, and the rest leave in fewer, larger writes. Each write to the
 * child's stdin is a syscall that wakes the server, and at concurrency 64 they were the largest single item of the
 * client's CPU profile (a quarter of its samples); 64 callers now cost 4 writes instead of 8 (BENCHMARKS.md, issue 19).
 *
 * Frames are whole lines, and only the writer fiber ever writes, so frames can never interleave.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Pull from "effect/Pull"

const encoder = new TextEncoder()

/** Queued frames at which the idle writer is first resumed without waiting for the end of the run (then twice as many). */
export const EAGER_FRAMES = 8
/** Queued characters at which the idle writer is resumed without waiting (about one pipe buffer). */
export const EAGER_CHARS = 64 * 1024

type Resume = (effect: Pull.Pull<readonly [Uint8Array]>) => void

/** @internal */
export class Outbox {
  private frames: Array<string> = []
  private waiting: Resume | undefined = undefined
  private wakeQueued = false
  private queuedChars = 0
  /** Frames at which the idle writer is resumed at once; doubles after each such write, until the run's end. */
  private eagerFrames = EAGER_FRAMES
  private state: "open" | "ending" | "shut" = "open"

  /**
   * The writer's pull: everything queued, joined and UTF-8 encoded as one chunk. Waits while nothing is queued;
   * ends (`Cause.Done`) once `end` was called and everything queued has been taken; is interrupted after `shutdown`.
   */
  readonly take: Pull.Pull<readonly [Uint8Array]> = Effect.callback<readonly [Uint8Array], Cause.Done>((resume) => {
    if (this.frames.length > 0) return resume(Effect.succeed(this.drain()))
    if (this.state === "ending") return resume(Cause.done())
    if (this.state === "shut") return resume(Effect.interrupt)
    this.waiting = resume
    return Effect.sync(() => {
      if (this.waiting === resume) this.waiting = undefined
    })
  })

  /** Queues one frame; ignored once the outbox is ending or shut. */
  offer(frame: string): void {
    if (this.state !== "open") return
    this.frames.push(frame)
    this.queuedChars += frame.length
    if (!this.wakeQueued) {
      this.wakeQueued = true
      queueMicrotask(this.endOfRun)
    }
    if (this.waiting !== undefined && (this.frames.length >= this.eagerFrames || this.queuedChars >= EAGER_CHARS)) {
      // Resumes the writer synchronously: it takes everything queued and writes it before `offer` returns.
      this.eagerFrames *= 2
      this.wake()
    }
  }

  /** Writes what is queued, then ends the stream (the writer then ends the child's stdin). */
  end(): void {
    if (this.state !== "open") return
    this.state = "ending"
    const resume = this.waiting
    if (resume !== undefined && this.frames.length === 0) {
      this.waiting = undefined
      resume(Cause.done())
    }
  }

  /** Drops what is queued and interrupts the writer. */
  shutdown(): void {
    if (this.state === "shut") return
    this.state = "shut"
    this.frames = []
    this.queuedChars = 0
    const resume = this.waiting
    if (resume !== undefined) {
      this.waiting = undefined
      resume(Effect.interrupt)
    }
  }

  /** Frames queued and not yet taken by the writer. */
  get size(): number {
    return this.frames.length
  }

  private readonly endOfRun = (): void => {
    this.wakeQueued = false
    this.eagerFrames = EAGER_FRAMES
    this.wake()
  }

  private readonly wake = (): void => {
    const resume = this.waiting
    if (resume === undefined || this.frames.length === 0) return
    this.waiting = undefined
    resume(Effect.succeed(this.drain()))
  }

  private drain(): readonly [Uint8Array] {
    const frames = this.frames
    this.frames = []
    this.queuedChars = 0
    return [encoder.encode(frames.length === 1 ? frames[0]! : frames.join(""))]
  }
}
