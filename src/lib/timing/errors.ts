/**
 * Errors of the timing layer. They carry a code, never a sentence: the UI words codes in one place
 * ($lib/ui/view/error-text), as the rest of the app does.
 */
export const TIMING_ERROR_CODES = [
	/** The browser offers no Web Serial (navigator.serial). */
	'unsupported',
	/** The user closed the port picker without choosing a port. */
	'no-port-chosen',
	/** The port could not be opened (in use by another program, no permission, a bad baud rate). */
	'open-failed',
	/** Reading failed: the cable was pulled, the device was unplugged or stopped answering. */
	'read-failed',
	/** The device ended its stream (the port closed). */
	'closed',
	/** The service's timer stream cannot be used (refused, not a stream); the browser gave up. */
	'stream-refused',
	/** The service refused the stream to this device (not joined, or removed): join again. */
	'stream-unauthorized',
	/** The connection to the service dropped; the browser is reconnecting. */
	'stream-lost',
	/** The service lost its chronometer (the cable at the ring laptop, the TCP link). */
	'chronometer-lost',
	/** No held stop with that number. */
	'unknown-stop',
	/** The stop carries no time (a bare STOP, a clock error): type the time by hand. */
	'no-time'
] as const;
export type TimingErrorCode = (typeof TIMING_ERROR_CODES)[number];

/** A timing error with a code; the UI turns codes into words. `message` is for logs only. */
export class TimingError extends Error {
	readonly code: TimingErrorCode;

	constructor(code: TimingErrorCode, options: { cause?: unknown; detail?: string } = {}) {
		super(options.detail === undefined ? code : `${code} (${options.detail})`, {
			cause: options.cause
		});
		this.name = 'TimingError';
		this.code = code;
	}
}
