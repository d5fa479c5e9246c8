/**
 * Hands a text to the browser as a downloaded file (no server round trip: works offline). The
 * object URL is released a moment later, once the download has taken it.
 */
export function saveFile(name: string, type: string, text: string): void {
	const url = URL.createObjectURL(new Blob([text], { type }));
	const a = document.createElement('a');
	a.href = url;
	a.download = name;
	a.click();
	setTimeout(() => URL.revokeObjectURL(url), 1000);
}
