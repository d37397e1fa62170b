// The demo's built-in source picture, drawn at start-up with Canvas 2D: text, a face, fine lines and colours to judge a warp by.
//
// Everything a person checks a warp with: straight graph-paper lines (do they bend?), a
// Siemens star and line gratings (aliasing, blur), small and large text (readability), a face
// (does it still look like one?), colour ramps (interpolation across hues) and corner labels
// (orientation, mirroring). Drawn at any size and aspect ratio: the layout is in units of the
// shorter side, centred; graph paper fills the rest and the labels sit in the real corners.

const FONT = '"DejaVu Sans", "Liberation Sans", Arial, Helvetica, sans-serif';

/** Draws the picture into a 2-D context (of a canvas or an OffscreenCanvas) of width × height. */
export function drawTestImage(ctx, width, height) {
  const u = Math.min(width, height) / 512; // layout unit: one pixel of the 512 × 512 design
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);

  // Sky-to-sand background, so that every region has a distinct colour.
  const bg = ctx.createLinearGradient(0, 0, 0, height);
  bg.addColorStop(0, '#1d3557');
  bg.addColorStop(0.55, '#457b9d');
  bg.addColorStop(0.56, '#e9c46a');
  bg.addColorStop(1, '#f4a261');
  ctx.fillStyle = bg;
  ctx.fillRect(0, 0, width, height);

  // Graph paper: a thin line every 32 units, a stronger one every 128.
  for (let k = 0; k * 32 * u <= Math.max(width, height); ++k) {
    const p = Math.round(k * 32 * u) + 0.5;
    ctx.strokeStyle = k % 4 === 0 ? 'rgba(255,255,255,0.55)' : 'rgba(255,255,255,0.22)';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(p, 0); ctx.lineTo(p, height);
    ctx.moveTo(0, p); ctx.lineTo(width, p);
    ctx.stroke();
  }

  ctx.translate((width - 512 * u) / 2, (height - 512 * u) / 2);
  ctx.scale(u, u);

  // Title and small print.
  ctx.textAlign = 'center';
  ctx.textBaseline = 'alphabetic';
  ctx.fillStyle = '#ffffff';
  ctx.font = `bold 54px ${FONT}`;
  ctx.fillText('gridsample', 256, 72);
  ctx.font = `15px ${FONT}`;
  ctx.fillStyle = '#f1faee';
  ctx.fillText('ONNX GridSample · AffineGrid · WebAssembly SIMD', 256, 98);
  ctx.font = `9px ${FONT}`;
  ctx.fillText('The quick brown fox jumps over the lazy dog 0123456789', 256, 114);

  drawFace(ctx, 140, 235, 78);
  drawStar(ctx, 378, 225, 74, 36);

  // Colour wheel ramp and a grey ramp.
  const hue = ctx.createLinearGradient(40, 0, 472, 0);
  for (let i = 0; i <= 6; ++i) hue.addColorStop(i / 6, `hsl(${i * 60}, 90%, 50%)`);
  ctx.fillStyle = hue;
  ctx.fillRect(40, 340, 432, 26);
  const grey = ctx.createLinearGradient(40, 0, 472, 0);
  grey.addColorStop(0, '#000');
  grey.addColorStop(1, '#fff');
  ctx.fillStyle = grey;
  ctx.fillRect(40, 366, 432, 14);

  // Line gratings: 1-unit lines at spacings 2, 3, 4, 6 and 8; then a checkerboard.
  let x = 40;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(40, 392, 432, 60);
  ctx.fillStyle = '#111111';
  for (const spacing of [2, 3, 4, 6, 8]) {
    for (let i = 0; i < 48 / spacing; ++i) ctx.fillRect(x + i * spacing, 392, 1, 60);
    x += 56;
  }
  for (let j = 0; j < 6; ++j) {
    for (let i = 0; i < 15; ++i) if ((i + j) % 2 === 0) ctx.fillRect(x + 4 + i * 10, 392 + j * 10, 10, 10);
  }
  ctx.strokeStyle = '#111111';
  ctx.lineWidth = 1;
  ctx.strokeRect(40.5, 392.5, 431, 59);

  // A ruler: ticks every 8 units, longer every 32.
  ctx.fillStyle = '#1d3557';
  for (let t = 0; t <= 432; t += 8) ctx.fillRect(40 + t, 462, 1, t % 32 === 0 ? 14 : 7);
  ctx.font = `10px ${FONT}`;
  ctx.textAlign = 'center';
  for (let t = 0; t <= 432; t += 64) ctx.fillText(String(t), 40 + t, 490);

  ctx.restore();

  // Corner labels (orientation, mirroring) in the picture's own corners, in layout units.
  ctx.save();
  ctx.setTransform(u, 0, 0, u, 0, 0);
  const [right, bottom] = [width / u, height / u];
  ctx.font = `bold 13px ${FONT}`;
  ctx.fillStyle = '#ffffff';
  ctx.textAlign = 'left';
  ctx.fillText('TL', 8, 20);
  ctx.textAlign = 'right';
  ctx.fillText('TR', right - 8, 20);
  ctx.fillStyle = '#1d3557';
  ctx.fillText('BR', right - 8, bottom - 8);
  ctx.textAlign = 'left';
  ctx.fillText('BL', 8, bottom - 8);
  ctx.restore();

  // A frame around the whole picture (in device pixels: it must hug the edges).
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.strokeStyle = '#e63946';
  ctx.lineWidth = Math.max(2, Math.round(3 * u));
  ctx.strokeRect(ctx.lineWidth / 2, ctx.lineWidth / 2, width - ctx.lineWidth, height - ctx.lineWidth);
  ctx.restore();
}

// A friendly face: head, hair, eyes with highlights, brows, nose, smile.
function drawFace(ctx, cx, cy, r) {
  ctx.save();
  ctx.fillStyle = '#3d2b1f';
  ctx.beginPath();
  ctx.ellipse(cx, cy - 0.12 * r, 1.02 * r, 1.12 * r, 0, Math.PI, 2 * Math.PI);
  ctx.fill();
  const skin = ctx.createRadialGradient(cx - 0.3 * r, cy - 0.3 * r, 0.1 * r, cx, cy, 1.1 * r);
  skin.addColorStop(0, '#ffe0c2');
  skin.addColorStop(1, '#e0a370');
  ctx.fillStyle = skin;
  ctx.beginPath();
  ctx.ellipse(cx, cy, 0.86 * r, r, 0, 0, 2 * Math.PI);
  ctx.fill();
  ctx.strokeStyle = '#6b4226';
  ctx.lineWidth = 2;
  ctx.stroke();
  for (const side of [-1, 1]) {
    const ex = cx + side * 0.34 * r;
    const ey = cy - 0.18 * r;
    ctx.fillStyle = '#ffffff';
    ctx.beginPath();
    ctx.ellipse(ex, ey, 0.2 * r, 0.13 * r, 0, 0, 2 * Math.PI);
    ctx.fill();
    ctx.strokeStyle = '#333';
    ctx.lineWidth = 1.5;
    ctx.stroke();
    ctx.fillStyle = '#2a6f97';
    ctx.beginPath();
    ctx.arc(ex + 0.03 * r, ey, 0.09 * r, 0, 2 * Math.PI);
    ctx.fill();
    ctx.fillStyle = '#000';
    ctx.beginPath();
    ctx.arc(ex + 0.03 * r, ey, 0.045 * r, 0, 2 * Math.PI);
    ctx.fill();
    ctx.fillStyle = '#fff';
    ctx.beginPath();
    ctx.arc(ex + 0.06 * r, ey - 0.035 * r, 0.022 * r, 0, 2 * Math.PI);
    ctx.fill();
    ctx.strokeStyle = '#3d2b1f';
    ctx.lineWidth = 3;
    ctx.beginPath();
    ctx.moveTo(ex - 0.2 * r, ey - 0.22 * r);
    ctx.quadraticCurveTo(ex, ey - 0.32 * r, ex + 0.2 * r, ey - 0.2 * r);
    ctx.stroke();
  }
  ctx.strokeStyle = '#9c6644';
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(cx, cy - 0.05 * r);
  ctx.lineTo(cx - 0.08 * r, cy + 0.22 * r);
  ctx.lineTo(cx + 0.05 * r, cy + 0.25 * r);
  ctx.stroke();
  ctx.strokeStyle = '#9d0208';
  ctx.lineWidth = 3;
  ctx.beginPath();
  ctx.arc(cx, cy + 0.3 * r, 0.36 * r, 0.15 * Math.PI, 0.85 * Math.PI);
  ctx.stroke();
  ctx.fillStyle = 'rgba(230, 57, 70, 0.25)';
  for (const side of [-1, 1]) {
    ctx.beginPath();
    ctx.arc(cx + side * 0.5 * r, cy + 0.2 * r, 0.12 * r, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.restore();
}

// A Siemens star: alternating sectors whose width shrinks to nothing at the centre.
function drawStar(ctx, cx, cy, r, spokes) {
  ctx.save();
  ctx.fillStyle = '#ffffff';
  ctx.beginPath();
  ctx.arc(cx, cy, r + 4, 0, 2 * Math.PI);
  ctx.fill();
  ctx.fillStyle = '#111111';
  for (let k = 0; k < spokes; ++k) {
    const a0 = (2 * Math.PI * k) / spokes;
    ctx.beginPath();
    ctx.moveTo(cx, cy);
    ctx.arc(cx, cy, r, a0, a0 + Math.PI / spokes);
    ctx.closePath();
    ctx.fill();
  }
  ctx.strokeStyle = '#111111';
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.arc(cx, cy, r + 4, 0, 2 * Math.PI);
  ctx.stroke();
  ctx.restore();
}
