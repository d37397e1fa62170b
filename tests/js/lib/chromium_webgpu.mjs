// Headless Chromium with WebGPU on SwiftShader for the browser tests: its flags, and a deadline on a page's work so that a stalled GPU fails a test instead of hanging make test.

// SwiftShader runs WebGPU on the CPU: correctness only, nothing is timed against it. Without
// the GPU watchdog a dispatch slowed down by the other test files on these cores is not a
// GPU process "hang" to be killed.
export const WEBGPU_FLAGS = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--disable-gpu-watchdog'];

/**
 * `promise`, or a rejection naming `what` and the page's problems once `seconds` have passed
 * (a page's evaluate has no timeout of its own).
 */
export async function within(seconds, what, promise, problems = []) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${seconds} s on SwiftShader; the page's problems: ${problems.join('; ') || 'none'}`)), seconds * 1000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
