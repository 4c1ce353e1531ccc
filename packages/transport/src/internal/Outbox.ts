/**
 * The writer's mailbox: any fiber offers whole frames; the one writer fiber takes everything queued as one chunk.
 *
 * It replaces a `Queue` + `Stream.fromQueue` on the hot path. The queue woke the writer through the runtime's
 * scheduler (a `setImmediate` turn per wake-up), so every request waited one event-loop turn before it was
 * written. Here the waiting writer is resumed from a microtask: frames offered in the same synchronous run (64
 * callers resumed by one stdout chunk) still leave in one write, without the extra event-loop turn.
 *
 * Frames are whole lines, and only the writer fiber ever writes, so frames can never interleave.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Pull from "effect/Pull"

const encoder = new TextEncoder()

type Resume = (effect: Pull.Pull<readonly [Uint8Array]>) => void

/** @internal */
export class Outbox {
  private frames: Array<string> = []
  private waiting: Resume | undefined = undefined
  private wakeQueued = false
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
    if (this.waiting !== undefined && !this.wakeQueued) {
      this.wakeQueued = true
      queueMicrotask(this.wake)
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

  private readonly wake = (): void => {
    this.wakeQueued = false
    const resume = this.waiting
    if (resume === undefined || this.frames.length === 0) return
    this.waiting = undefined
    resume(Effect.succeed(this.drain()))
  }

  private drain(): readonly [Uint8Array] {
    const frames = this.frames
    this.frames = []
    return [encoder.encode(frames.length === 1 ? frames[0]! : frames.join(""))]
  }
}
