// The command line's words for `gridsample warp`: the options it takes, checked into {command, input, output, options} with usage errors that say what was expected.
import { extname } from 'node:path';
import process from 'node:process';

import { FORMAT_LIST, FORMATS, fileName, formatOfName } from './files.mjs';
import { FLOW_FILE_KINDS, flowFileKind } from './flow_file.mjs';
import { FLOW_NAMES } from '../images/flows.mjs';
import { libraryRules } from '../core/api.mjs';
import { MODE_NAMES, PADDING_NAMES } from '../core/modes.mjs';

/** Bad usage: reported with a pointer to --help and exit status 2. */
export class UsageError extends Error {}

/**
 * Whether parsed `options` hold a pixel-space matrix for checkMatrices: --matrix without
 * --inverse (inverted), or --perspective (a quad).
 */
export function hasMatrixToCheck(options) {
  return (options.matrix && !options.inverse) || !!options.perspective;
}

/**
 * `options` once the library of the loaded module `gs` has checked their pixel-space matrices (a
 * UsageError naming the option): --matrix invertible unless --inverse, --perspective a quad
 * with no three corners on a line.
 */
export function checkMatrices(gs, options) {
  if (options.matrix && !options.inverse) {
    try {
      libraryRules(gs).pixelHomography('gridsample', '--matrix', [...options.matrix, 0, 0, 1], 'pixel', false, [1, 1], [1, 1], false, '--inverse');
    } catch (e) {
      throw new UsageError(e.message.replace(/^gridsample: /, ''));
    }
  }
  if (options.perspective) {
    try {
      gs.perspectiveTransform(options.perspective, [[0, 0], [1, 0], [1, 1], [0, 1]]);
    } catch (e) {
      throw new UsageError(`--perspective: ${e.message.replace(/^perspectiveTransform: src: /, '')}`);
    }
  }
  return options;
}

/** `parse(argv)`, or null after reporting its UsageError with a pointer to `help` (the caller exits with status 2). */
export function parseOrReport(parse, argv, help) {
  try {
    return parse(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`gridsample: ${e.message}\nRun '${help}' for the options.\n`);
    return null;
  }
}

const VALUE_OPTIONS = ['rotate', 'scale', 'shear', 'translate', 'theta', 'matrix', 'perspective', 'flow', 'strength',
  'flow-file', 'flow-size', 'mode', 'padding', 'size', 'fill', 'quality', 'threads', 'format'];
const FLAG_OPTIONS = ['align-corners', 'inverse', 'json', 'help', 'version'];
const SHORT = { '-h': 'help', '-v': 'version' };
const MAX_SIDE = 32768;

function number(option, text) {
  const t = text.trim();
  const v = Number(t);
  if (t === '' || !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) || !Number.isFinite(v)) {
    throw new UsageError(`--${option}: expected a number, got "${text}"`);
  }
  return v;
}

function numbers(option, text, counts, what) {
  const parts = text.split(',');
  if (!counts.includes(parts.length)) throw new UsageError(`--${option}: expected ${what}, got "${text}"`);
  return parts.map((p) => number(option, p));
}

function choice(option, text, allowed) {
  if (!allowed.includes(text)) {
    throw new UsageError(`--${option}: expected ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}, got "${text}"`);
  }
  return text;
}

/** The command line as {command, input, output, options}; throws UsageError. */
export function parseArgs(argv) {
  const values = {};
  const positional = [];
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (SHORT[arg]) {
      values[SHORT[arg]] = true;
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) throw new UsageError(`unknown option ${arg} (a file name starting with - goes after --)`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (FLAG_OPTIONS.includes(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      values[name] = true;
    } else if (VALUE_OPTIONS.includes(name)) {
      // The next word is the value whatever it looks like, so that `--rotate -30` works.
      let value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`--${name}: missing value`);
      if (name in values) throw new UsageError(`--${name} given twice`);
      value = String(value);
      values[name] = value;
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  if (values.help || values.version) return { command: values.help ? 'help' : 'version' };
  if (positional.length === 0) throw new UsageError('missing command; usage: gridsample warp IN OUT [options]');
  const [command, ...files] = positional;
  if (command === 'help') return { command: 'help' };
  if (command !== 'warp') throw new UsageError(`unknown command "${command}"; the commands are warp and onnx`);
  if (files.length < 2) throw new UsageError(`warp: expected IN and OUT (PNG or JPEG files, - for standard input and output), got ${files.length ? `only "${files[0]}"` : 'neither'}`);
  if (files.length > 2) throw new UsageError(`warp: expected IN and OUT (PNG or JPEG files, - for standard input and output), got ${files.length} files: ${files.join(' ')}`);

  const options = {
    mode: 'bilinear', padding: 'zeros', alignCorners: !!values['align-corners'], flow: null, strength: 0.6, size: null,
    inverse: !!values.inverse, json: !!values.json,
  };
  const transform = ['rotate', 'scale', 'shear', 'translate'].filter((k) => k in values);
  if ('flow-file' in values) readFlowFileOptions(values, transform, options);
  else if ('flow-size' in values) throw new UsageError('--flow-size applies to a raw .bin --flow-file only');
  const matrices = ['theta', 'matrix', 'perspective'].filter((k) => k in values);
  if (matrices.length > 1) throw new UsageError(`--${matrices[0]} and --${matrices[1]} each give the whole matrix; give one`);
  const [whole] = matrices;
  if (whole && transform.length) {
    throw new UsageError(`--${whole} gives the whole matrix; it cannot be combined with --${transform.join(', --')}`);
  }
  if (options.inverse && whole !== 'matrix') throw new UsageError('--inverse applies to --matrix only');
  if (whole === 'matrix' || whole === 'perspective') {
    // Pixel space: OpenCV's conventions, where align_corners has no meaning; no flow on top.
    if (options.alignCorners) throw new UsageError(`--align-corners does not apply to --${whole} (pixel centres sit at whole numbers)`);
    if ('flow' in values) throw new UsageError(`--flow works with the θ transforms only, not with --${whole}`);
  }
  if (whole === 'theta') {
    options.theta = numbers('theta', values.theta, [6], 'six numbers A,B,C,D,E,F');
  } else if (whole === 'matrix') {
    options.matrix = numbers('matrix', values.matrix, [6], 'six numbers A,B,C,D,E,F');
  } else if (whole === 'perspective') {
    const v = numbers('perspective', values.perspective, [8], 'eight numbers X1,Y1,...,X4,Y4 (four corners)');
    options.perspective = [[v[0], v[1]], [v[2], v[3]], [v[4], v[5]], [v[6], v[7]]];
  } else {
    const [scaleX, scaleY = scaleX] = 'scale' in values ? numbers('scale', values.scale, [1, 2], 'S or SX,SY') : [1];
    const [tx, ty] = 'translate' in values ? numbers('translate', values.translate, [2], 'TX,TY') : [0, 0];
    // In pixels of the input: θ follows once its size is known.
    options.transform = {
      rotate: 'rotate' in values ? number('rotate', values.rotate) : 0,
      scaleX,
      scaleY,
      shear: 'shear' in values ? number('shear', values.shear) : 0,
      tx,
      ty,
    };
  }
  if ('flow' in values) options.flow = choice('flow', values.flow, FLOW_NAMES);
  if ('strength' in values) {
    if (!options.flow) throw new UsageError('--strength needs --flow');
    options.strength = number('strength', values.strength);
    if (Math.abs(options.strength) > 1) throw new UsageError(`--strength: expected a number from -1 to 1, got "${values.strength}"`);
  }
  if ('mode' in values) options.mode = choice('mode', values.mode, MODE_NAMES);
  if ('padding' in values) options.padding = choice('padding', values.padding, PADDING_NAMES);
  if ('size' in values) options.size = size('size', values.size);
  if ('fill' in values) {
    const v = numbers('fill', values.fill, [1, 3, 4], 'V, R,G,B or R,G,B,A (0 to 255 each)');
    if (v.some((x) => x < 0 || x > 255)) throw new UsageError(`--fill: expected values from 0 to 255, got "${values.fill}"`);
    if (options.padding !== 'zeros') throw new UsageError(`--fill is the colour of --padding zeros, not of --padding ${options.padding}`);
    if (options.flow) throw new UsageError('--fill does not apply to --flow presets (they sample a grid); use it with the other warps');
    options.fill = v.length === 1 ? [v[0], v[0], v[0], v[0]] : v.length === 3 ? [...v, 255] : v;
  }
  // Checked last, so that a bad option is reported first whatever the file names.
  const [input, output] = files;
  const outputFormat = readOutputFormat(output, values.format);
  if (formatOfName(input) === null) {
    throw new UsageError(`${input}: cannot read ${extname(input)} files; the input formats are ${FORMAT_LIST} (a name without an extension, or -, is told by its first bytes)`);
  }
  if ('threads' in values) {
    options.threads = number('threads', values.threads);
    if (!Number.isInteger(options.threads) || options.threads < 1 || options.threads > 64) {
      throw new UsageError(`--threads: expected a whole number from 1 to 64, got "${values.threads}"`);
    }
  }
  if ('quality' in values) {
    options.quality = number('quality', values.quality);
    if (!Number.isInteger(options.quality) || options.quality < 1 || options.quality > 100) {
      throw new UsageError(`--quality: expected a whole number from 1 to 100, got "${values.quality}"`);
    }
    if (outputFormat.name !== 'JPEG') throw new UsageError(`--quality applies to JPEG output (.jpg, .jpeg), not to ${output === '-' ? `${outputFormat.name} output` : output}`);
  }
  return { command: 'warp', input, output, outputFormat, options };
}

// --format's words: each format's name and its extensions without the dot (png, jpeg, jpg).
const FORMAT_WORDS = new Map(FORMATS.flatMap((f) => [f.name, ...f.extensions.map((e) => e.slice(1))].map((w) => [w.toLowerCase(), f])));

// The output's format (a FORMATS entry): its extension's, else --format's (the only way to name
// it for `-` or a name without an extension); both given, they must agree.
function readOutputFormat(output, word) {
  const byName = formatOfName(output);
  const extension = extname(output);
  if (byName === null) throw new UsageError(`${output}: cannot write ${extension} files; the output formats are ${FORMAT_LIST}`);
  if (word === undefined) {
    if (!byName) throw new UsageError(`${fileName(output, { output: true })}: the output needs a file extension or --format png|jpeg; the output formats are ${FORMAT_LIST}`);
    return byName;
  }
  const format = FORMAT_WORDS.get(word.toLowerCase());
  if (!format) throw new UsageError(`--format: expected png or jpeg, got "${word}"`);
  if (byName && byName !== format) throw new UsageError(`--format ${word} disagrees with ${output}'s extension (${byName.name}); give one`);
  return format;
}

// WxH with each side from 1 to MAX_SIDE.
function size(option, text) {
  const m = /^(\d+)x(\d+)$/i.exec(text.trim());
  const [w, h] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (!m || w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE) {
    throw new UsageError(`--${option}: expected WxH with each side from 1 to ${MAX_SIDE}, e.g. 640x480; got "${text}"`);
  }
  return [w, h];
}

// --flow-file (and --flow-size for raw .bin): the flow alone moves the pixels, in pixel space.
function readFlowFileOptions(values, transform, options) {
  const path = values['flow-file'];
  const kind = flowFileKind(path);
  if (!kind) throw new UsageError(`--flow-file: expected ${FLOW_FILE_KINDS}; got "${path}"`);
  const others = [...transform, ...['theta', 'matrix', 'perspective', 'flow', 'size'].filter((k) => k in values)];
  if (others.length) throw new UsageError(`--flow-file moves the pixels by the flow alone, at its size; it cannot be combined with --${others.join(', --')}`);
  if (options.alignCorners) throw new UsageError('--align-corners does not apply to --flow-file (pixel centres sit at whole numbers)');
  if ((kind === '.bin') !== ('flow-size' in values)) {
    throw new UsageError(kind === '.bin' ? '--flow-file: a raw .bin flow needs --flow-size WxH' : '--flow-size applies to a raw .bin --flow-file only');
  }
  options.flowFile = { path, size: kind === '.bin' ? size('flow-size', values['flow-size']) : null };
}
